// GET /api/proxies/{name}/stats carries the gateway's traffic through the Proxy next to its VM's:
// what the replicas flushed becomes, at the leader's round, bytes per second per step of the
// window; a Proxy no crawler went through has none (the page's empty state).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyStatsSchema } from '@/lib/api/stats';
import { GatewayHistory } from '@/server/control/gateway-history';
import { proxyStats } from '@/server/http/stats-api';
import { GatewayStatsStore } from '@/server/store/gateway-stats';
import { GatewayTrafficStore } from '@/server/store/gateway-traffic';
import { createLogger } from '@/server/telemetry/logger';
import { systemClock } from '@/server/control/clock';
import { startApi, type ApiHarness } from './api-harness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  for (const name of ['busy', 'quiet']) {
    await api.runtime.store.proxies.insert({
      uid: `uid-${name}`,
      name,
      spec: { mode: 'Static', address: '192.0.2.10', port: 3128, labels: {} },
      now: new Date().toISOString(),
    });
  }
}, 60_000);
afterAll(async () => {
  await api?.close();
});

describe('a Proxy’s stats with the gateway’s traffic', () => {
  it('give the gateway’s bytes in and out per second at each step of the window, zeros between, and none for a Proxy without gateway traffic', async () => {
    const traffic = new GatewayTrafficStore(api.runtime.store.sql);
    const roundAtMs = Date.now() - 60_000;
    const clock = { ...systemClock, now: () => roundAtMs };
    const history = new GatewayHistory({
      store: new GatewayStatsStore(api.runtime.store.sql),
      clock,
      logger: createLogger({ level: 'silent' }),
      intervalMs: 10_000,
    });
    // Two replicas' flushes: the round charts their sum once.
    await traffic.add({
      replicaId: 'a',
      atMs: roundAtMs,
      deltas: [{ kind: 'proxy', name: 'busy', cause: '', bytesIn: 15_000, bytesOut: 4_000, connections: 1, open: 1 }],
    });
    await traffic.add({
      replicaId: 'b',
      atMs: roundAtMs,
      deltas: [{ kind: 'proxy', name: 'busy', cause: '', bytesIn: 5_000, bytesOut: 1_000, connections: 1, open: 0 }],
    });
    await history.runOnce();

    const busy = proxyStatsSchema.parse(await proxyStats(api.runtime, { name: 'busy', window: '1h' }));
    expect(busy.stepSeconds).toBe(10);
    expect(busy.gateway.length).toBeGreaterThanOrEqual(359);
    const step = new Date(Math.floor(roundAtMs / 10_000) * 10_000).toISOString();
    expect(busy.gateway.filter((point) => point.inBps > 0 || point.outBps > 0)).toEqual([{ at: step, inBps: 2_000, outBps: 500 }]);
    expect((await proxyStats(api.runtime, { name: 'quiet', window: '1h' })).gateway).toEqual([]);
  });
});
