// The gateway as the runtime runs it: the fleet read from the Proxy views, a dead proxy made
// suspect and probed, a Proxy being deleted drained, refusals counted on the page. Real sockets on
// loopback: proxy-chain servers in direct mode stand in for the fleet's Squids (the lab test runs
// real Squids), the token check and the fleet are injected.
import http from 'node:http';
import net from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ProxyView } from '@/lib/api/proxies';
import { systemClock } from '@/server/control/clock';
import { GatewayService } from '@/server/gateway/gateway-service';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { proxyConnect, proxyGet } from '@/test/fakes/gateway-client';
import { freePort } from '@/test/support/free-port';
import { nextTurn } from '@/test/support/wait';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const token = 'kvm2g_0123456789abcdef_secret';

async function startTarget(): Promise<string> {
  const server = http.createServer((_request, response) => response.end('hello from the target'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** A fleet proxy stand-in on loopback; `port` of a dead one refuses connections. */
async function startUpstream(): Promise<number> {
  const server = new ProxyChainServer({ port: 0, host: '127.0.0.1' });
  await server.listen();
  cleanups.push(() => server.close(true));
  return server.port;
}

function proxyView(name: string, port: number, status: Partial<ProxyView['status']> = {}): ProxyView {
  return { name, labels: {}, port, status: { phase: 'Ready', ip: '127.0.0.1', ...status } } as ProxyView;
}

async function startGateway(fleet: { proxies: ProxyView[] }, options: { drainMs?: number } = {}) {
  const probed: string[] = [];
  let announce = () => {};
  let fleetReads = 0;
  const gateway = new GatewayService({
    host: '127.0.0.1',
    port: await freePort(),
    drainMs: options.drainMs ?? 30_000,
    proxies: async () => {
      fleetReads += 1;
      return fleet.proxies;
    },
    setNames: async () => [],
    watchProxies: (listener) => {
      announce = listener;
      return () => {};
    },
    verifyToken: async (given) => (given === token ? { id: '0123456789abcdef', name: 'crawler' } : undefined),
    tokenNames: async () => new Map([['0123456789abcdef', 'crawler']]),
    probeNow: (proxy) => probed.push(proxy),
    metrics: createMetrics(),
    logger: createLogger({ level: 'silent' }),
    clock: systemClock,
    refreshMs: 60_000,
  });
  await gateway.start();
  cleanups.push(() => gateway.stop());
  const view = await gateway.view();
  const endpoint = { host: '127.0.0.1', port: view.port, credentials: `crawler:${token}` };
  /** a Proxy write: the gateway reads the fleet again */
  const written = async () => {
    const before = fleetReads;
    announce();
    await vi.waitFor(() => expect(fleetReads).toBeGreaterThan(before));
    await nextTurn(); // what the gateway does with the read is promise callbacks
  };
  return { gateway, endpoint, probed, written };
}

describe('GatewayService', () => {
  it('carries a request through a Ready Proxy of the fleet and shows it on the page', async () => {
    const target = await startTarget();
    const { gateway, endpoint } = await startGateway({ proxies: [proxyView('edge-1', await startUpstream())] });

    const answer = await proxyGet(endpoint, `http://${target}/`);

    expect(answer.body).toBe('hello from the target');
    const view = await gateway.view();
    expect(view).toMatchObject({ enabled: true, listening: true });
    expect(view.proxies).toEqual([expect.objectContaining({ proxy: 'edge-1', tunnels: 1 })]);
    expect(view.tokens).toEqual([expect.objectContaining({ token: '0123456789abcdef', name: 'crawler', tunnels: 1 })]);
  });

  it('makes a proxy whose dial failed suspect and probes it, until a newer probe reports on it', async () => {
    const target = await startTarget();
    const fleet = { proxies: [proxyView('dead', await freePort()), proxyView('live', await startUpstream())] };
    const { gateway, endpoint, probed, written } = await startGateway(fleet);

    for (let request = 0; request < 4; request += 1) expect((await proxyGet(endpoint, `http://${target}/`)).status).toBe(200);

    expect(probed).toEqual(['dead']);
    expect((await gateway.view()).proxies.map((proxy) => [proxy.proxy, proxy.tunnels])).toEqual([['live', 4]]);
    // A probe newer than the failure clears it: the next connections may try it again.
    fleet.proxies = [proxyView('dead', fleet.proxies[0]!.port, { probedAt: new Date(Date.now() + 1000).toISOString() }), fleet.proxies[1]!];
    await written();
    await proxyGet(endpoint, `http://${target}/`);
    await proxyGet(endpoint, `http://${target}/`);
    expect(probed).toEqual(['dead', 'dead']);
  });

  it('drains a Proxy being deleted: no new tunnels, the open one closed when GATEWAY_DRAIN ends', async () => {
    const target = await startTarget();
    const { gateway, endpoint } = await startGateway({ proxies: [proxyView('edge-1', await startUpstream())] }, { drainMs: 300 });
    const tunnel = await proxyConnect(endpoint, target);
    expect(tunnel.status).toBe(200);
    const closed = new Promise((resolve) => tunnel.socket.once('close', resolve));

    const started = Date.now();
    const drained = gateway.drain('edge-1', new AbortController().signal);
    const refused = await proxyGet(endpoint, `http://${target}/`);
    await drained;

    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await closed;
    expect(refused.status).toBe(503);
    expect(refused.headers['x-gateway-error']).toContain('draining');
    // The upstream socket's close comes a tick after the client's.
    await vi.waitFor(async () => expect((await gateway.view()).proxies[0]).toMatchObject({ open: 0, failures: { drained: 1 } }));
  });

  it('closes its kept-alive connections to a Proxy that left the fleet', async () => {
    const target = await startTarget();
    const upstream = new ProxyChainServer({ port: 0, host: '127.0.0.1' });
    await upstream.listen();
    cleanups.push(() => upstream.close(true));
    const fleet = { proxies: [proxyView('edge-1', upstream.port)] };
    const { endpoint, written } = await startGateway(fleet);
    expect((await proxyGet(endpoint, `http://${target}/`)).status).toBe(200);
    expect(upstream.getConnectionIds()).toHaveLength(1);

    fleet.proxies = [];
    await written();

    await expect.poll(() => upstream.getConnectionIds()).toHaveLength(0);
  });

  it('ends a drain at once when no tunnel is open through the Proxy', async () => {
    const { gateway } = await startGateway({ proxies: [proxyView('edge-1', await startUpstream())] });
    const started = Date.now();
    await gateway.drain('edge-1', new AbortController().signal);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('counts a refused token and a bad username on the page with the client address', async () => {
    const target = await startTarget();
    const { gateway, endpoint } = await startGateway({ proxies: [proxyView('edge-1', await startUpstream())] });

    const wrongToken = await proxyGet({ ...endpoint, credentials: 'crawler:kvm2g_0123456789abcdef_wrong' }, `http://${target}/`);
    const badUsername = await proxyGet({ ...endpoint, credentials: `crawler-set-:${token}` }, `http://${target}/`);

    expect(wrongToken.status).toBe(407);
    expect(badUsername.status).toBe(400);
    const { refusals } = await gateway.view();
    expect(refusals.map((refusal) => [refusal.cause, refusal.client])).toEqual([
      ['username-invalid', '127.0.0.1'],
      ['bad-token', '127.0.0.1'],
    ]);
  });

  it('keeps the dashboard running when its port is taken, and says why on the page', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const gateway = new GatewayService({
      host: '127.0.0.1',
      port: (blocker.address() as net.AddressInfo).port,
      drainMs: 1000,
      proxies: async () => [],
      setNames: async () => [],
      watchProxies: () => () => {},
      verifyToken: async () => undefined,
      tokenNames: async () => new Map(),
      probeNow: () => {},
      metrics: createMetrics(),
      logger: createLogger({ level: 'silent' }),
      clock: systemClock,
    });
    await gateway.start();
    cleanups.push(() => gateway.stop());

    const view = await gateway.view();
    expect(view.listening).toBe(false);
    expect(view.error).toMatch(/EADDRINUSE.*set GATEWAY_PORT to a free port/);
  });
});
