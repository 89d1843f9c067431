// Two replicas' gateways over one store: the page of either shows the traffic of both (each flushes
// its counters to the store), and a replica's own traffic announces itself on the live feed.
import http from 'node:http';
import net from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProxyView } from '@/lib/api/proxies';
import { systemClock } from '@/server/control/clock';
import { GatewayService } from '@/server/gateway/gateway-service';
import { openStore } from '@/server/store';
import { GatewayTrafficStore } from '@/server/store/gateway-traffic';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { tempDir } from '@/test/fakes/control-plane';
import { proxyGet } from '@/test/fakes/gateway-client';
import { freePort } from '@/test/support/free-port';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const token = 'kvm2g_0123456789abcdef_secret';

async function listening(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as net.AddressInfo).port;
}

async function startUpstream(): Promise<number> {
  const server = new ProxyChainServer({ port: 0, host: '127.0.0.1' });
  await server.listen();
  cleanups.push(() => server.close(true));
  return server.port;
}

async function startReplica(options: { id: string; traffic: GatewayTrafficStore; fleet: ProxyView[]; announce?: () => void }) {
  const gateway = new GatewayService({
    host: '127.0.0.1',
    port: await freePort(),
    drainMs: 1_000,
    proxies: async () => options.fleet,
    setNames: async () => [],
    watchProxies: () => () => {},
    verifyToken: async (given) => (given === token ? { id: '0123456789abcdef', name: 'crawler' } : undefined),
    tokenNames: async () => new Map([['0123456789abcdef', 'crawler']]),
    probeNow: () => {},
    metrics: createMetrics(),
    logger: createLogger({ level: 'silent' }),
    clock: systemClock,
    refreshMs: 60_000,
    traffic: { store: options.traffic, replicaId: options.id, aliveMs: 10_000, flushMs: 50 },
    ...(options.announce ? { announce: options.announce } : {}),
  });
  await gateway.start();
  cleanups.push(() => gateway.stop());
  const endpoint = { host: '127.0.0.1', port: (await gateway.view()).port, credentials: `crawler:${token}` };
  return { gateway, endpoint };
}

describe('the gateway on several replicas', () => {
  it('shows on each replica the traffic of all of them, and announces its own on the live feed', async () => {
    // One SQLite store stands in for the shared database (the queries run on both engines: store-gateway-traffic).
    const dir = tempDir('gateway-replicas-');
    const store = await openStore({ dataDir: dir.path });
    cleanups.push(async () => dir.remove());
    cleanups.push(() => store.close());
    const traffic = new GatewayTrafficStore(store.sql);
    const target = `127.0.0.1:${await listening(http.createServer((_request, response) => response.end('hello from the target')))}`;
    const fleet = [{ name: 'edge-1', labels: {}, port: await startUpstream(), status: { phase: 'Ready', ip: '127.0.0.1' } } as ProxyView];
    let announced = 0;
    const a = await startReplica({ id: 'a', traffic, fleet, announce: () => (announced += 1) });
    const b = await startReplica({ id: 'b', traffic, fleet });

    expect((await proxyGet(a.endpoint, `http://${target}/`)).status).toBe(200);
    expect((await proxyGet(b.endpoint, `http://${target}/`)).status).toBe(200);
    expect((await proxyGet(b.endpoint, `http://${target}/`)).status).toBe(200);

    expect(announced).toBeGreaterThan(0);
    for (const replica of [a, b]) {
      await vi.waitFor(async () => {
        const view = await replica.gateway.view();
        expect(view.proxies).toEqual([expect.objectContaining({ proxy: 'edge-1', tunnels: 3, open: 0 })]);
        expect(view.tokens).toEqual([expect.objectContaining({ token: '0123456789abcdef', name: 'crawler', tunnels: 3 })]);
      });
    }
  });
});
