// The store: one module per record type over one SqlDatabase, which is either the SQLite file in
// DATA_DIR or the PostgreSQL database named by DATABASE_URL. Every method answers a promise;
// `transaction` hands out the same record modules bound to one transaction.
import { connectDatabase, type OpenDatabaseOptions } from './database';
import { EventStore } from './events';
import { migrate, migrations } from './migrations';
import { ProbeHistoryStore } from './probe-history';
import { ProviderHealthStore } from './provider-health';
import { ProxyStore, ProxyWrites } from './proxies';
import { ProxySetStore } from './proxy-sets';
import { ReplicaStore } from './replicas';
import { StatsHistoryStore } from './stats-history';
import type { Engine, SqlDatabase, SqlExecutor } from './sql';

export interface StoreRecords {
  readonly proxies: ProxyStore;
  readonly proxySets: ProxySetStore;
  readonly events: EventStore;
  readonly health: ProviderHealthStore;
  readonly probes: ProbeHistoryStore;
  readonly stats: StatsHistoryStore;
  readonly replicas: ReplicaStore;
}

export interface Store extends StoreRecords {
  readonly engine: Engine;
  /** the statements seam, for modules that keep their own records (server/auth) */
  readonly sql: SqlExecutor;
  /** Runs `work` in one transaction over record modules bound to it. */
  transaction<T>(work: (tx: StoreRecords) => Promise<T>): Promise<T>;
  /** Brings the schema up to date; returns the versions applied. */
  migrate(): Promise<number[]>;
  close(): Promise<void>;
}

const recordsOn = (db: SqlExecutor, proxies: ProxyStore): StoreRecords => ({
  proxies,
  proxySets: new ProxySetStore(db),
  events: new EventStore(db),
  health: new ProviderHealthStore(db),
  probes: new ProbeHistoryStore(db),
  replicas: new ReplicaStore(db),
  stats: new StatsHistoryStore(db),
});

/** The store over `db`, not yet migrated (the runtime migrates at start; openStore does both). */
function storeOver(db: SqlDatabase, options: Pick<OpenDatabaseOptions, 'migrations'> = {}): Store {
  let closing: Promise<void> | undefined;
  const writes = new ProxyWrites();
  return {
    ...recordsOn(db, new ProxyStore(db, writes)),
    engine: db.engine,
    sql: db,
    async transaction(work) {
      // Listeners hear of a transaction's Proxy writes once it committed (never of a rolled-back one).
      const written = new Set<string>();
      const result = await db.transaction((tx) => work(recordsOn(tx, new ProxyStore(tx, writes, (name) => written.add(name)))));
      for (const name of written) writes.emit(name);
      return result;
    },
    migrate: () => migrate(db, options.migrations ?? migrations),
    close: () => (closing ??= db.close()),
  };
}

/** Connects without touching the schema yet. */
export function createStore(options: OpenDatabaseOptions): Store {
  return storeOver(connectDatabase(options), options);
}

/** Connects and migrates. */
export async function openStore(options: OpenDatabaseOptions): Promise<Store> {
  const store = createStore(options);
  try {
    await store.migrate();
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}

export type { ProxyRecord, ReconcileStatus, ProbeStatus, StoredPhase } from './proxies';
export type { ProxySetRecord, ProxySetStatus } from './proxy-sets';
export type { EventInput } from './events';
export type { ProviderHealth, HealthSample } from './provider-health';
export type { ProbeSample } from './probe-history';
export type { ReplicaRecord } from './replicas';
