// The store: one SQLite database in DATA_DIR with a module per record type.
import type { Database } from 'better-sqlite3';
import { openDatabase, type OpenDatabaseOptions } from './database';
import { EventStore } from './events';
import { ProbeHistoryStore } from './probe-history';
import { ProviderHealthStore } from './provider-health';
import { ProxyStore } from './proxies';
import { StatsHistoryStore } from './stats-history';

export interface Store {
  readonly db: Database;
  readonly proxies: ProxyStore;
  readonly events: EventStore;
  readonly health: ProviderHealthStore;
  readonly probes: ProbeHistoryStore;
  readonly stats: StatsHistoryStore;
  close(): void;
}

export function openStore(options: OpenDatabaseOptions): Store {
  const db = openDatabase(options);
  return {
    db,
    proxies: new ProxyStore(db),
    events: new EventStore(db),
    health: new ProviderHealthStore(db),
    probes: new ProbeHistoryStore(db),
    stats: new StatsHistoryStore(db),
    close: () => {
      if (db.open) db.close();
    },
  };
}

export type { ProxyRecord, ReconcileStatus, ProbeStatus, StoredPhase } from './proxies';
export type { EventInput } from './events';
export type { ProviderHealth, HealthSample } from './provider-health';
export type { ProbeSample } from './probe-history';
