// The gateway's process in bench:gateway: the GatewayService as the runtime builds it (real gateway
// tokens over a real SQLite store, real metrics), its fleet one Ready Proxy (the bench's Squid),
// and beside it an API-like HTTP endpoint, GET /api/gateway, answering what the dashboard's route
// of that name answers (gateway.view() as JSON, token names read from the store), so its latency
// shows what 1,000 open tunnels do to this process's event loop. And a reference in the same
// process: proxy-chain alone (no auth, no choice, its own dial) chaining to the same Squid, which
// tells the library's cost from ours; and a bare Node TCP relay to that Squid (net.Socket pipes, no
// HTTP at all: what relaying bytes costs Node on this machine), which tells Node's from the library's. Run with `node --import tsx`;
// the parent talks to it over IPC: `ready` once listening, `usage` (CPU and RSS) on request.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { type AddressInfo, connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server as ProxyChainServer } from 'proxy-chain';
import type { ProxyView } from '@/lib/api/proxies';
import { AuthService } from '@/server/auth/service';
import { systemClock } from '@/server/control/clock';
import { GatewayService } from '@/server/gateway/gateway-service';
import { openStore } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';

export type ChildMessage =
  | { type: 'ready'; gatewayPort: number; bareProxyChainPort: number; relayPort: number; apiPort: number; token: string }
  | { type: 'usage'; cpu: NodeJS.CpuUsage; rss: number; heapUsed: number };

async function main(): Promise<void> {
  const squidPort = Number(process.env.BENCH_SQUID_PORT);
  if (!squidPort) throw new Error('BENCH_SQUID_PORT must name the Squid the gateway chains to');
  const dataDir = mkdtempSync(join(tmpdir(), 'kvm2-bench-gateway-'));
  const store = await openStore({ dataDir });
  const auth = new AuthService({ db: store.sql });
  const { token } = await auth.gatewayTokens.create('bench');
  const proxy = { name: 'squid-1', labels: {}, port: squidPort, status: { phase: 'Ready', ip: '127.0.0.1', healthy: true } } as unknown as ProxyView;
  const gateway = new GatewayService({
    host: '127.0.0.1',
    port: Number(process.env.BENCH_GATEWAY_PORT),
    drainMs: 30_000,
    proxies: async () => [proxy],
    setNames: async () => [],
    watchProxies: () => () => {},
    verifyToken: (given) => auth.gatewayTokens.verify(given),
    tokenNames: async () => new Map((await auth.gatewayTokens.list()).map((entry) => [entry.id, entry.name])),
    probeNow: () => {},
    metrics: createMetrics(),
    logger: createLogger({ level: 'warn' }),
    clock: systemClock,
  });
  await gateway.start();
  const bare = new ProxyChainServer({ host: '127.0.0.1', port: 0, prepareRequestFunction: () => ({ upstreamProxyUrl: `http://127.0.0.1:${squidPort}` }) });
  await bare.listen();
  const relay = createTcpServer((client) => {
    const upstream = connect(squidPort, '127.0.0.1');
    // As Node's HTTP server and client (so proxy-chain) do: no Nagle delay on small writes.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const api = createServer((request, response) => {
    if (request.url !== '/api/gateway') return void response.writeHead(404).end();
    gateway.view().then(
      (view) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(view)),
      (err: unknown) => response.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const view = await gateway.view();
  if (!view.listening) throw new Error(`the gateway does not listen: ${view.error}`);
  const send = (message: ChildMessage) => process.send?.(message);
  // --profile: a CPU profile of the tunnels phase only, written where the parent says.
  const inspector = new Session();
  inspector.connect();
  process.on('message', (message: { type: string; file?: string }) => {
    if (message.type === 'profile-start') void inspector.post('Profiler.enable').then(() => inspector.post('Profiler.start'));
    if (message.type === 'profile-stop' && message.file) {
      const file = message.file;
      void inspector.post('Profiler.stop').then(({ profile }) => writeFileSync(file, JSON.stringify(profile)));
    }
    if (message.type === 'usage') send({ type: 'usage', cpu: process.cpuUsage(), rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed });
  });
  process.on('disconnect', () => {
    inspector.disconnect();
    void (async () => {
      api.close();
      await bare.close(true);
      relay.close();
      await gateway.stop();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    })();
  });
  send({
    type: 'ready',
    gatewayPort: view.port,
    bareProxyChainPort: bare.port,
    relayPort: (relay.address() as AddressInfo).port,
    apiPort: (api.address() as AddressInfo).port,
    token,
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
