// The stats history thins like an RRD: raw 10 s samples for the last hour, one-minute averages
// for the last day, ten-minute averages for seven days, nothing older; reads average the rows into
// one point per step of the window; traffic totals come from rate times the span each row covers.
// On both store engines.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@/server/store';
import type { StatsWindowName } from '@/lib/api/stats';
import { windowSpans, type VmStatsRow } from '@/server/store/stats-history';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
// Aligned to ten minutes, so bucket edges fall on known samples.
const now = Date.UTC(2026, 11, 1, 12, 0, 0);

const engines = storeEnginesForFile();
let store: Store;

/** What every seeded VM sample reads unless a test says otherwise; an average of them reads the same. */
const vmValues = {
  cpuPercent: 10,
  memoryBytes: 1_000,
  memoryTotalBytes: 2_000,
  netRxBps: 100,
  netTxBps: 50,
  diskReadBps: 0,
  diskWriteBps: 0,
};

const vmRow = (atMs: number, values: Partial<VmStatsRow> = {}): VmStatsRow => ({
  proxyUid: 'uid-a',
  provider: 'kvm2-home',
  target: 'hv-1',
  domain: 'proxy-a',
  sampledAtMs: atMs,
  spanMs: 10_000,
  ...vmValues,
  ...values,
});

/** One row per VM and host every 10 s from `fromMs` (inclusive) to `toMs` (exclusive). */
async function seed(fromMs: number, toMs: number, values: (atMs: number) => Partial<VmStatsRow> = () => ({})): Promise<void> {
  for (let at = fromMs; at < toMs; at += 10_000) {
    await store.stats.record({
      host: { provider: 'kvm2-home', target: 'hv-1', sampledAtMs: at, cpuPercent: 20, memoryUsedBytes: 3, memoryTotalBytes: 8 },
      vms: [vmRow(at, values(at))],
    });
  }
}

const rowsBetween = async (table: string, fromMs: number, toMs: number) =>
  (await store.sql.get<{ count: number }>(`SELECT COUNT(*) AS count FROM ${table} WHERE sampled_at >= ? AND sampled_at < ?`, [fromMs, toMs]))!.count;

// Seeding 26 hours of samples is ~10,000 inserts: about 5 s on PostgreSQL under a loaded unit run.
const seedingTimeout = { timeout: 60_000 };

describe.each(storeEngines)('stats history consolidation on %s', (engine) => {
  beforeEach(async () => {
    store = await engines.open(engine);
  });

  it('keeps 10 s for an hour, 1 min for a day, 10 min for 7 days, and drops what is older', seedingTimeout, async () => {
    await seed(now - 26 * hour, now);
    await seed(now - 7 * day - hour, now - 7 * day + hour);
    const removed = await store.stats.consolidate(now);
    expect(removed).toBeGreaterThan(0);
    for (const table of ['vm_stats', 'host_stats']) {
      expect(await rowsBetween(table, now - hour, now)).toBe(360);
      expect(await rowsBetween(table, now - day, now - hour)).toBe(23 * 60);
      expect(await rowsBetween(table, now - 26 * hour, now - day)).toBe(12);
      expect(await rowsBetween(table, now - 7 * day, now - 7 * day + hour)).toBe(6);
      expect(await rowsBetween(table, 0, now - 7 * day)).toBe(0);
    }
    // Done once: a second run the same minute changes nothing.
    expect(await store.stats.consolidate(now)).toBe(0);
  });

  it('averages each bucket (a minute of 0 and 60 % is 30 %), ignoring intervals without a rate', async () => {
    const start = now - 2 * hour;
    await seed(start, start + minute, (at) => ({
      cpuPercent: (at - start) / 1_000 < 30 ? 0 : 60,
      netRxBps: at === start ? null : 100,
      spanMs: at === start ? null : 10_000,
    }));
    await store.stats.consolidate(now);
    const rows = await store.sql.all(`SELECT sampled_at, bucket_ms, span_ms, cpu_percent, net_rx_bps FROM vm_stats`);
    expect(rows).toEqual([{ sampled_at: start, bucket_ms: minute, span_ms: 50_000, cpu_percent: 30, net_rx_bps: 100 }]);
  });

  it('reads a window as one averaged point per step: 10 s for 1 h, 1 min for 24 h, 10 min for 7 d', seedingTimeout, async () => {
    await seed(now - 3 * hour, now);
    await store.stats.consolidate(now);
    const points = async (window: StatsWindowName) =>
      await store.stats.proxyHistory({ proxyUid: 'uid-a', sinceMs: now - windowSpans[window].spanMs, stepMs: windowSpans[window].stepMs });
    expect(await points('1h')).toHaveLength(360);
    expect(await points('24h')).toHaveLength(3 * 60);
    expect(await points('7d')).toHaveLength(3 * 6);
    expect((await points('7d'))[0]).toEqual({ atMs: now - 3 * hour, ...vmValues });
    const host = await store.stats.hostHistory({ provider: 'kvm2-home', target: 'hv-1', sinceMs: now - hour, stepMs: minute });
    expect(host).toHaveLength(60);
    expect(host[0]).toEqual({ atMs: now - hour, cpuPercent: 20, memoryUsedBytes: 3, memoryTotalBytes: 8 });
  });

  it('totals each Proxy’s traffic over the last hour from rate × span, busiest first, and sums their rates per minute', async () => {
    await seed(now - hour, now);
    await store.stats.record({
      host: { provider: 'kvm2-home', target: 'hv-1', sampledAtMs: now - 1_000, cpuPercent: 1, memoryUsedBytes: 1, memoryTotalBytes: 1 },
      vms: [vmRow(now - 1_000, { proxyUid: 'uid-b', domain: 'proxy-b', netRxBps: 1_000_000, netTxBps: 0 })],
    });
    expect(await store.stats.trafficByProxy(now - hour)).toEqual([
      { proxyUid: 'uid-b', rxBytes: 10_000_000, txBytes: 0 },
      { proxyUid: 'uid-a', rxBytes: 360 * 1_000, txBytes: 360 * 500 },
    ]);
    const perMinute = await store.stats.totalTraffic({ sinceMs: now - hour, stepMs: minute });
    expect(perMinute).toHaveLength(60);
    expect(perMinute[0]).toEqual({ atMs: now - hour, rxBps: 100, txBps: 50 });
    // The last minute: uid-a all along, uid-b for one sample at 1 MB/s; each at its own average.
    expect(perMinute.at(-1)).toEqual({ atMs: now - minute, rxBps: 1_000_100, txBps: 50 });
  });
});
