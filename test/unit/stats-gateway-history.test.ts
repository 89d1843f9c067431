// Gateway traffic in the stats history (migration 11), on SQLite and PostgreSQL: the leader turns
// the growth of the replicas' summed counters (gateway_traffic) into one row per Proxy and round,
// so nothing a replica counted is charted twice or lost (a replica folded away, a restart, a new
// leader); reads give bytes per second per complete step of the window, zeros where nothing moved;
// rows thin like the VM's own series and keep every byte.
import { describe, expect, it } from 'vitest';
import { openStore, type Store } from '@/server/store';
import { systemClock } from '@/server/control/clock';
import { GatewayHistory } from '@/server/control/gateway-history';
import { GatewayStatsStore } from '@/server/store/gateway-stats';
import { createLogger } from '@/server/telemetry/logger';
import { GatewayTrafficStore, type TrafficDelta } from '@/server/store/gateway-traffic';
import { migrations } from '@/server/store/migrations';
import { windowSpans } from '@/server/store/stats-history';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const now = Date.UTC(2026, 11, 1, 12, 0, 0);

const moved = (name: string, bytesIn: number, bytesOut: number): TrafficDelta => ({
  kind: 'proxy',
  name,
  cause: '',
  bytesIn,
  bytesOut,
  connections: 1,
  open: 0,
});

async function withProxies(store: Store, names: string[]): Promise<void> {
  for (const name of names) {
    await store.proxies.insert({
      uid: `uid-${name}`,
      name,
      spec: { mode: 'Static', address: '192.0.2.10', port: 3128, labels: {} },
      now: new Date(now).toISOString(),
    });
  }
}

const historyRows = (store: Store) =>
  store.sql.all<{ proxy_uid: string; sampled_at: number; bytes_in: number; bytes_out: number }>(
    `SELECT proxy_uid, sampled_at, bytes_in, bytes_out FROM gateway_stats ORDER BY sampled_at, proxy_uid`,
  );

/** History rows written straight into the table: `bytes(atMs)` every 10 s from `fromMs` to `toMs` (exclusive). */
async function seed(store: Store, options: { fromMs: number; toMs: number; bytes: (atMs: number) => [number, number] }): Promise<void> {
  await store.sql.transaction(async (tx) => {
    for (let at = options.fromMs; at < options.toMs; at += 10_000) {
      const [bytesIn, bytesOut] = options.bytes(at);
      await tx.run(`INSERT INTO gateway_stats (proxy_uid, sampled_at, bucket_ms, bytes_in, bytes_out) VALUES (?, ?, 0, ?, ?)`, [
        'uid-p1',
        at,
        bytesIn,
        bytesOut,
      ]);
    }
  });
}

describe.each(storeEngines)('gateway traffic in the stats history on %s', (engine) => {
  it('records per Proxy what every replica moved since the last round, once, and nothing for a quiet round', async () => {
    const store = await engines.open(engine);
    await withProxies(store, ['p1', 'p2']);
    const traffic = new GatewayTrafficStore(store.sql);
    const history = new GatewayStatsStore(store.sql);
    await traffic.add({ replicaId: 'a', atMs: now, deltas: [moved('p1', 1_000, 100), moved('p2', 5, 0), moved('gone', 9, 9)] });
    await traffic.add({ replicaId: 'b', atMs: now, deltas: [moved('p1', 500, 50)] });
    expect(await history.record(now + 10_000)).toEqual(['p1', 'p2']);
    expect(await history.record(now + 20_000)).toEqual([]);
    await traffic.add({ replicaId: 'b', atMs: now + 25_000, deltas: [moved('p1', 7, 3)] });
    expect(await history.record(now + 30_000)).toEqual(['p1']);
    expect(await historyRows(store)).toEqual([
      { proxy_uid: 'uid-p1', sampled_at: now + 10_000, bytes_in: 1_500, bytes_out: 150 },
      { proxy_uid: 'uid-p2', sampled_at: now + 10_000, bytes_in: 5, bytes_out: 0 },
      { proxy_uid: 'uid-p1', sampled_at: now + 30_000, bytes_in: 7, bytes_out: 3 },
    ]);
  });

  it('are written by the leader’s round, which names the Proxies that moved (their open pages refetch)', async () => {
    const store = await engines.open(engine);
    await withProxies(store, ['p1', 'p2']);
    const announced: string[][] = [];
    const round = new GatewayHistory({
      store: new GatewayStatsStore(store.sql),
      clock: { ...systemClock, now: () => now + 10_000 },
      logger: createLogger({ level: 'silent' }),
      intervalMs: 10_000,
      onRecorded: (proxies) => announced.push(proxies),
    });
    await new GatewayTrafficStore(store.sql).add({ replicaId: 'a', atMs: now, deltas: [moved('p2', 64, 8)] });
    expect(await round.runOnce()).toEqual(['p2']);
    expect(await round.runOnce()).toEqual([]);
    expect(announced).toEqual([['p2']]);
    expect(await historyRows(store)).toEqual([{ proxy_uid: 'uid-p2', sampled_at: now + 10_000, bytes_in: 64, bytes_out: 8 }]);
  });

  it('counts nothing twice or not at all when a replica is folded away, restarts, or another replica leads', async () => {
    const store = await engines.open(engine);
    await withProxies(store, ['p1']);
    const traffic = new GatewayTrafficStore(store.sql);
    await traffic.add({ replicaId: 'a', atMs: now, deltas: [moved('p1', 100, 10)] });
    await traffic.add({ replicaId: 'b', atMs: now, deltas: [moved('p1', 200, 20)] });
    await new GatewayStatsStore(store.sql).record(now + 10_000);
    // Replica a went silent and is folded into the retired row; b restarts under its id.
    await store.replicas.heartbeat({ id: 'b', address: 'b:3000', startedAtMs: 0, heartbeatAtMs: now + 15_000 });
    await traffic.retire({ replicaId: 'b', aliveSinceMs: now + 12_000 });
    await traffic.add({ replicaId: 'b', atMs: now + 16_000, deltas: [moved('p1', 40, 4)] });
    // Another replica leads now: it carries on from the marks in the store, not from its memory.
    const nextLeader = new GatewayStatsStore(store.sql);
    expect(await nextLeader.record(now + 20_000)).toEqual(['p1']);
    const rows = await historyRows(store);
    expect(rows.map((row) => [row.bytes_in, row.bytes_out])).toEqual([
      [300, 30],
      [40, 4],
    ]);
    const [total] = await traffic.totals({ replicaId: 'b', aliveSinceMs: 0 });
    expect(total).toMatchObject({ bytesIn: 340, bytesOut: 34 });
  });

  it('does not chart the traffic counted before the history existed as one spike', async () => {
    const location = await engines.location(engine);
    const before = await openStore({ ...location, migrations: migrations.filter((migration) => migration.version <= 10) });
    // The Proxy as that version wrote it (no instance name then: migration 13).
    await before.sql.run(`INSERT INTO proxies (uid, name, spec, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`, [
      'uid-p1',
      'p1',
      JSON.stringify({ mode: 'Static', address: '192.0.2.10', port: 3128, labels: {} }),
      JSON.stringify({ phase: 'Pending', conditions: [] }),
      new Date(now).toISOString(),
      new Date(now).toISOString(),
    ]);
    await new GatewayTrafficStore(before.sql).add({ replicaId: 'a', atMs: now, deltas: [moved('p1', 9_000_000, 1_000)] });
    await before.close();
    const store = await openStore(location);
    try {
      const history = new GatewayStatsStore(store.sql);
      expect(await history.record(now + 10_000)).toEqual([]);
      await new GatewayTrafficStore(store.sql).add({ replicaId: 'a', atMs: now + 12_000, deltas: [moved('p1', 10, 1)] });
      expect(await history.record(now + 20_000)).toEqual(['p1']);
      expect((await historyRows(store)).map((row) => row.bytes_in)).toEqual([10]);
    } finally {
      await store.close();
    }
  });

  it('reads bytes per second per complete step, zeros where nothing moved, and nothing for a Proxy without gateway traffic', async () => {
    const store = await engines.open(engine);
    // Two rounds in the step at now - 60 s, one in the step at now - 30 s, one in the current (incomplete) step.
    const rounds: Array<[number, number, number]> = [
      [now - 60_000 + 1_000, 10_000, 1_000],
      [now - 60_000 + 6_000, 10_000, 1_000],
      [now - 30_000 + 2_000, 50_000, 0],
      [now + 3_000, 70_000, 70_000],
    ];
    for (const [at, bytesIn, bytesOut] of rounds) {
      await store.sql.run(`INSERT INTO gateway_stats (proxy_uid, sampled_at, bucket_ms, bytes_in, bytes_out) VALUES (?, ?, 0, ?, ?)`, [
        'uid-p1',
        at,
        bytesIn,
        bytesOut,
      ]);
    }
    const history = new GatewayStatsStore(store.sql);
    const points = await history.proxyHistory({ proxyUid: 'uid-p1', sinceMs: now - 90_000, stepMs: 10_000, nowMs: now + 5_000 });
    expect(points).toEqual([
      { atMs: now - 90_000, inBps: 0, outBps: 0 },
      { atMs: now - 80_000, inBps: 0, outBps: 0 },
      { atMs: now - 70_000, inBps: 0, outBps: 0 },
      { atMs: now - 60_000, inBps: 2_000, outBps: 200 },
      { atMs: now - 50_000, inBps: 0, outBps: 0 },
      { atMs: now - 40_000, inBps: 0, outBps: 0 },
      { atMs: now - 30_000, inBps: 5_000, outBps: 0 },
      { atMs: now - 20_000, inBps: 0, outBps: 0 },
      { atMs: now - 10_000, inBps: 0, outBps: 0 },
    ]);
    expect(await history.proxyHistory({ proxyUid: 'uid-other', sinceMs: now - 90_000, stepMs: 10_000, nowMs: now + 5_000 })).toEqual([]);
  });

  it('thins like the VM series (10 s for an hour, 1 min for a day, 10 min for 7 days, nothing older) and keeps every byte', { timeout: 60_000 }, async () => {
    const store = await engines.open(engine);
    await seed(store, { fromMs: now - 26 * hour, toMs: now, bytes: (at) => [at % minute === 0 ? 6_000 : 0, 60] });
    await seed(store, { fromMs: now - 7 * day - hour, toMs: now - 7 * day + hour, bytes: () => [1, 1] });
    const history = new GatewayStatsStore(store.sql);
    const read = (window: '1h' | '24h' | '7d') =>
      history.proxyHistory({ proxyUid: 'uid-p1', sinceMs: now - windowSpans[window].spanMs, stepMs: windowSpans[window].stepMs, nowMs: now });
    const dayBefore = await read('24h');
    expect(await store.stats.consolidate(now)).toBeGreaterThan(0);
    const rowsBetween = async (fromMs: number, toMs: number) =>
      (await store.sql.get<{ count: number }>(`SELECT COUNT(*) AS count FROM gateway_stats WHERE sampled_at >= ? AND sampled_at < ?`, [fromMs, toMs]))!.count;
    expect(Number(await rowsBetween(now - hour, now))).toBe(360);
    expect(Number(await rowsBetween(now - day, now - hour))).toBe(23 * 60);
    expect(Number(await rowsBetween(now - 26 * hour, now - day))).toBe(12);
    expect(Number(await rowsBetween(now - 7 * day, now - 7 * day + hour))).toBe(6);
    expect(Number(await rowsBetween(0, now - 7 * day))).toBe(0);
    // A minute moves 6,000 B in and 360 B out: 100 B/s and 6 B/s, before and after thinning.
    const dayAfter = await read('24h');
    expect(dayAfter).toEqual(dayBefore);
    expect(dayAfter).toHaveLength(24 * 60);
    expect(dayAfter[0]).toEqual({ atMs: now - day, inBps: 100, outBps: 6 });
    expect((await read('7d')).find((point) => point.atMs === now - 20 * hour)).toEqual({ atMs: now - 20 * hour, inBps: 100, outBps: 6 });
    const total = await store.sql.get<{ bytes_in: number }>(`SELECT SUM(bytes_in) AS bytes_in FROM gateway_stats WHERE sampled_at >= ?`, [now - 26 * hour]);
    expect(Number(total!.bytes_in)).toBe(26 * 60 * 6_000);
  });
});
