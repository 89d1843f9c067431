// GET /api/proxies/{name}/stats carries the gateway's traffic through the Proxy next to its VM's:
// the leader's history rows as bytes per second per step of the window; a Proxy no crawler went
// through has none (the page's empty state).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyStatsSchema } from '@/lib/api/stats';
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
    // Two rounds of the leader's in one step (rows as server/store/gateway-stats writes them; the
    // rounds themselves are tested in stats-gateway-history).
    const roundAtMs = Math.floor((Date.now() - 60_000) / 10_000) * 10_000;
    for (const [offsetMs, bytesIn, bytesOut] of [
      [1_000, 15_000, 4_000],
      [6_000, 5_000, 1_000],
    ]) {
      await api.runtime.store.sql.run(`INSERT INTO gateway_stats (proxy_uid, sampled_at, bucket_ms, bytes_in, bytes_out) VALUES (?, ?, 0, ?, ?)`, [
        'uid-busy',
        roundAtMs + offsetMs!,
        bytesIn!,
        bytesOut!,
      ]);
    }

    const busy = proxyStatsSchema.parse(await api.runtime.services.stats.proxy({ name: 'busy', window: '1h' }));
    expect(busy.stepSeconds).toBe(10);
    expect(busy.gateway.length).toBeGreaterThanOrEqual(359);
    const step = new Date(roundAtMs).toISOString();
    expect(busy.gateway.filter((point) => point.inBps > 0 || point.outBps > 0)).toEqual([{ at: step, inBps: 2_000, outBps: 500 }]);
    expect((await api.runtime.services.stats.proxy({ name: 'quiet', window: '1h' })).gateway).toEqual([]);
  });
});
