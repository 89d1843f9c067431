// The gateway's counters shared by the replicas (migration 10), on SQLite and PostgreSQL: each
// replica adds what moved since its last flush under its id, the totals are the sums over every
// replica, open tunnels count only from replicas heard from recently, a restart never makes a
// total go backwards, and the rows of replicas gone for good are folded into one without changing
// a total.
import { describe, expect, it } from 'vitest';
import { GatewayTrafficStore, type TrafficDelta } from '@/server/store/gateway-traffic';
import type { SqlExecutor } from '@/server/store/sql';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();

const proxy = (name: string, values: Partial<TrafficDelta> = {}): TrafficDelta => ({
  kind: 'proxy',
  name,
  cause: '',
  bytesIn: 0,
  bytesOut: 0,
  connections: 0,
  open: 0,
  ...values,
});

/** Counts the statements run through it. */
function counting(db: SqlExecutor): { db: SqlExecutor; statements: () => number } {
  let statements = 0;
  const counted: SqlExecutor = {
    engine: db.engine,
    all: (sql, params) => (statements++, db.all(sql, params)),
    get: (sql, params) => (statements++, db.get(sql, params)),
    run: (sql, params) => (statements++, db.run(sql, params)),
    transaction: (work) => db.transaction(work),
  };
  return { db: counted, statements: () => statements };
}

describe.each(storeEngines)('gateway traffic in the store on %s', (engine) => {
  it('sums what every replica added, and counts open tunnels only from replicas heard from recently', async () => {
    const store = await engines.open(engine);
    const traffic = new GatewayTrafficStore(store.sql);
    const big = 5_000_000_000; // past 32 bits: a long-lived gateway moves terabytes
    await traffic.add({ replicaId: 'a', atMs: 1_000, deltas: [proxy('p1', { bytesIn: big, bytesOut: 10, connections: 2, open: 1 })] });
    await traffic.add({ replicaId: 'b', atMs: 1_000, deltas: [proxy('p1', { bytesIn: 500, bytesOut: 5, connections: 1, open: 2 })] });
    await traffic.add({
      replicaId: 'a',
      atMs: 2_000,
      deltas: [
        proxy('p1', { bytesIn: 100, open: 1 }),
        { kind: 'failure', name: 'p1', cause: 'upstream-reset', bytesIn: 0, bytesOut: 0, connections: 1, open: 0 },
        { kind: 'token', name: 't1', cause: '', bytesIn: 600, bytesOut: 15, connections: 3, open: 3 },
      ],
    });
    await store.replicas.heartbeat({ id: 'b', address: 'b:3000', startedAtMs: 0, heartbeatAtMs: 9_000 });
    await store.replicas.heartbeat({ id: 'c', address: 'c:3000', startedAtMs: 0, heartbeatAtMs: 1_000 });
    await traffic.add({ replicaId: 'c', atMs: 1_000, deltas: [proxy('p1', { bytesIn: 1, open: 4 })] });

    // Seen from replica a: its own open tunnels it knows itself; b is alive, c went silent.
    const totals = await traffic.totals({ replicaId: 'a', aliveSinceMs: 5_000 });
    expect(totals).toEqual([
      { kind: 'failure', name: 'p1', cause: 'upstream-reset', bytesIn: 0, bytesOut: 0, connections: 1, open: 0 },
      proxy('p1', { bytesIn: big + 601, bytesOut: 15, connections: 3, open: 2 }),
      { kind: 'token', name: 't1', cause: '', bytesIn: 600, bytesOut: 15, connections: 3, open: 0 },
    ]);
  });

  it('write one statement per flush and none when there is nothing to add', async () => {
    const store = await engines.open(engine);
    const { db, statements } = counting(store.sql);
    const traffic = new GatewayTrafficStore(db);
    await traffic.add({ replicaId: 'a', atMs: 1, deltas: [] });
    expect(statements()).toBe(0);
    await traffic.add({ replicaId: 'a', atMs: 1, deltas: [proxy('p1', { bytesIn: 1 }), proxy('p2', { bytesOut: 2 })] });
    expect(statements()).toBe(1);
  });

  it('never lose what a replica counted when it restarts under the same id (its counters start at 0 again)', async () => {
    const store = await engines.open(engine);
    const traffic = new GatewayTrafficStore(store.sql);
    await traffic.add({ replicaId: 'fixed', atMs: 1_000, deltas: [proxy('p1', { bytesIn: 700, connections: 2, open: 2 })] });
    // The process died with 2 tunnels open; the new one starts from nothing and folds its old rows.
    await traffic.retire({ replicaId: 'fixed', aliveSinceMs: 5_000 });
    await traffic.add({ replicaId: 'fixed', atMs: 6_000, deltas: [proxy('p1', { bytesIn: 50, connections: 1, open: 1 })] });
    const seenByOther = await traffic.totals({ replicaId: 'other', aliveSinceMs: 0 });
    expect(seenByOther).toEqual([proxy('p1', { bytesIn: 750, connections: 3, open: 0 })]);
  });

  it('fold the rows of replicas no longer alive into one, keeping every total and leaving the live ones alone', async () => {
    const store = await engines.open(engine);
    const traffic = new GatewayTrafficStore(store.sql);
    for (const id of ['gone-1', 'gone-2', 'alive']) {
      await traffic.add({ replicaId: id, atMs: 1_000, deltas: [proxy('p1', { bytesIn: 10, bytesOut: 1, connections: 1, open: 1 })] });
    }
    await store.replicas.heartbeat({ id: 'alive', address: 'x', startedAtMs: 0, heartbeatAtMs: 10_000 });
    const before = await traffic.totals({ replicaId: 'me', aliveSinceMs: 5_000 });

    expect(await traffic.retire({ replicaId: 'me', aliveSinceMs: 5_000 })).toBe(2);
    expect(await traffic.retire({ replicaId: 'me', aliveSinceMs: 5_000 })).toBe(0);
    expect(await traffic.totals({ replicaId: 'me', aliveSinceMs: 5_000 })).toEqual(before);
    expect(before).toEqual([proxy('p1', { bytesIn: 30, bytesOut: 3, connections: 3, open: 1 })]);
    const rows = await store.sql.all<{ replica_id: string }>(`SELECT replica_id FROM gateway_traffic ORDER BY replica_id`);
    expect(rows.map((row) => row.replica_id)).toEqual(['', 'alive']);
  });
});
