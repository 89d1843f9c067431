// The gateway's counters as every replica shows them: each flushes what its gateway moved to the
// store (one statement per flush, nothing when nothing moved), and the page's totals are the sums
// over the replicas, this one's counted live. A replica that restarts (its counters at 0 again)
// never takes a total back, and open tunnels count only from replicas alive.
import { describe, expect, it } from 'vitest';
import { GatewayAccounting } from '@/server/gateway/accounting';
import { GatewayTrafficSync } from '@/server/gateway/traffic-sync';
import { GatewayTrafficStore } from '@/server/store/gateway-traffic';
import type { SqlExecutor } from '@/server/store/sql';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();

function counting(db: SqlExecutor): { db: SqlExecutor; writes: () => number } {
  let writes = 0;
  return {
    db: {
      engine: db.engine,
      all: (s, p) => db.all(s, p),
      get: (s, p) => db.get(s, p),
      run: (s, p) => (writes++, db.run(s, p)),
      transaction: (w) => db.transaction(w),
    },
    writes: () => writes,
  };
}

function replica(options: { db: SqlExecutor; id: string; now?: () => number }) {
  const accounting = new GatewayAccounting({ metrics: createMetrics() });
  const sync = new GatewayTrafficSync({
    store: new GatewayTrafficStore(options.db),
    accounting,
    replicaId: options.id,
    clock: { now: options.now ?? (() => 10_000) },
    aliveMs: 10_000,
    flushMs: 60_000,
    logger: createLogger({ level: 'silent' }),
  });
  return { accounting, sync };
}

describe.each(storeEngines)('gateway counters shared by the replicas on %s', (engine) => {
  it('show the sums over the replicas, this one counted live before its next flush', async () => {
    const store = await engines.open(engine);
    const a = replica({ db: store.sql, id: 'a' });
    const b = replica({ db: store.sql, id: 'b' });
    await store.replicas.heartbeat({ id: 'b', address: 'b', startedAtMs: 0, heartbeatAtMs: 10_000 });
    a.accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    a.accounting.progress(1, { bytesIn: 1000, bytesOut: 100 });
    await a.sync.flush();
    a.accounting.progress(1, { bytesIn: 1500, bytesOut: 100 });
    b.accounting.opened({ connection: 1, proxy: 'p1', token: 't2' });
    b.accounting.closed(1, { bytesIn: 20, bytesOut: 2, result: 'upstream-reset' });
    b.accounting.opened({ connection: 2, proxy: 'p2', token: 't2' });
    b.accounting.progress(2, { bytesIn: 7, bytesOut: 0 });
    await b.sync.flush();

    const totals = await a.sync.totals();
    expect(totals.proxies).toEqual([
      { proxy: 'p1', bytesIn: 1520, bytesOut: 102, open: 1, tunnels: 2, failures: { 'upstream-reset': 1 } },
      { proxy: 'p2', bytesIn: 7, bytesOut: 0, open: 1, tunnels: 1, failures: {} },
    ]);
    expect(totals.tokens).toEqual([
      { token: 't1', bytesIn: 1500, bytesOut: 100, open: 1, tunnels: 1 },
      { token: 't2', bytesIn: 27, bytesOut: 2, open: 1, tunnels: 2 },
    ]);
  });

  it('write one statement per flush, and nothing while nothing moved', async () => {
    const store = await engines.open(engine);
    const { db, writes } = counting(store.sql);
    const a = replica({ db, id: 'a' });
    await a.sync.flush();
    expect(writes()).toBe(0);
    a.accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    a.accounting.progress(1, { bytesIn: 10, bytesOut: 1 });
    await a.sync.flush();
    expect(writes()).toBe(1);
    await a.sync.flush();
    expect(writes()).toBe(1);
    // An idle open tunnel closing changes the open count: that is written.
    a.accounting.closed(1, { bytesIn: 10, bytesOut: 1, result: 'ok' });
    await a.sync.flush();
    expect(writes()).toBe(2);
  });

  it('never take a total back when a replica restarts, and drop the open tunnels of the process that died', async () => {
    const store = await engines.open(engine);
    const first = replica({ db: store.sql, id: 'fixed' });
    await first.sync.start();
    first.accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    first.accounting.progress(1, { bytesIn: 900, bytesOut: 90 });
    await first.sync.flush();
    // Killed without its final flush; the next process under the same id counts from 0.
    const second = replica({ db: store.sql, id: 'fixed' });
    await second.sync.start();
    await store.replicas.heartbeat({ id: 'fixed', address: 'x', startedAtMs: 0, heartbeatAtMs: 10_000 });
    second.accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    second.accounting.progress(1, { bytesIn: 5, bytesOut: 0 });

    const seen = await second.sync.totals();
    expect(seen.proxies).toEqual([{ proxy: 'p1', bytesIn: 905, bytesOut: 90, open: 1, tunnels: 2, failures: {} }]);
    await second.sync.stop();
    const other = replica({ db: store.sql, id: 'other' });
    expect((await other.sync.totals()).proxies).toEqual([{ proxy: 'p1', bytesIn: 905, bytesOut: 90, open: 1, tunnels: 2, failures: {} }]);
  });

  it('keep what a failed flush did not write, and write it with the next', async () => {
    const store = await engines.open(engine);
    let failing = true;
    const flaky: SqlExecutor = {
      engine: store.sql.engine,
      all: (s, p) => store.sql.all(s, p),
      get: (s, p) => store.sql.get(s, p),
      run: (s, p) => (failing ? Promise.reject(new Error('connection terminated')) : store.sql.run(s, p)),
      transaction: (w) => store.sql.transaction(w),
    };
    const a = replica({ db: flaky, id: 'a' });
    a.accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    a.accounting.progress(1, { bytesIn: 300, bytesOut: 30 });
    await a.sync.flush();
    failing = false;
    await a.sync.flush();
    const other = replica({ db: store.sql, id: 'other' });
    expect((await other.sync.totals()).proxies).toEqual([{ proxy: 'p1', bytesIn: 300, bytesOut: 30, open: 0, tunnels: 1, failures: {} }]);
  });
});
