// Versioned schema migrations for both engines, applied in order at open. The version lives in
// SQLite's user_version or PostgreSQL's schema_version table; each migration runs in its own
// transaction together with the version bump, so a crash mid-migration leaves the previous version
// intact and the next start redoes it.
import { StoreMigrationError, StoreVersionError } from './errors';
import type { Engine, SqlDatabase } from './sql';

export interface Migration {
  version: number;
  name: string;
  /** in SQLite's dialect; rewritten for PostgreSQL by migrationDdl */
  up: string;
  /** PostgreSQL's text, when the rewrite of `up` would not do */
  postgres?: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'proxies',
    up: `
      CREATE TABLE proxies (
        uid TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        spec TEXT NOT NULL,
        status TEXT NOT NULL,
        probe TEXT,
        generation INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        deletion_requested_at TEXT
      );`,
  },
  {
    version: 2,
    name: 'proxy events',
    up: `
      CREATE TABLE proxy_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        proxy_uid TEXT NOT NULL,
        type TEXT NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL,
        count INTEGER NOT NULL DEFAULT 1,
        first_at INTEGER NOT NULL,
        last_at INTEGER NOT NULL
      );
      CREATE INDEX proxy_events_by_proxy ON proxy_events (proxy_uid, id);
      CREATE INDEX proxy_events_by_time ON proxy_events (last_at);`,
  },
  {
    version: 3,
    name: 'provider health',
    up: `
      CREATE TABLE provider_health (
        provider TEXT NOT NULL,
        target TEXT NOT NULL,
        position INTEGER NOT NULL,
        ready INTEGER NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL,
        details TEXT NOT NULL,
        latency_ms REAL NOT NULL,
        checked_at INTEGER NOT NULL,
        PRIMARY KEY (provider, target)
      );
      CREATE TABLE provider_health_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        provider TEXT NOT NULL,
        target TEXT NOT NULL,
        ready INTEGER NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL,
        details TEXT NOT NULL,
        latency_ms REAL NOT NULL,
        checked_at INTEGER NOT NULL
      );
      CREATE INDEX provider_health_history_by_provider ON provider_health_history (provider, checked_at);
      CREATE INDEX provider_health_history_by_time ON provider_health_history (checked_at);`,
  },
  {
    // server/auth: the admin password (scrypt hash, never the password), the session-signing
    // secret, sessions by the sha256 of their id, API tokens by the sha256 of their secret.
    version: 4,
    name: 'auth',
    up: `
      CREATE TABLE admin_password (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        hash TEXT NOT NULL,
        source TEXT NOT NULL,
        set_at TEXT NOT NULL
      );
      CREATE TABLE auth_secrets (
        name TEXT PRIMARY KEY,
        value BLOB NOT NULL
      );
      CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_by_expiry ON sessions (expires_at);
      CREATE TABLE api_tokens (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
      );`,
  },
  {
    // server/control/prober: every probe of a Proxy through itself, for the latency chart;
    // pruned and downsampled like the provider health history.
    version: 5,
    name: 'probe history',
    up: `
      CREATE TABLE probe_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        proxy_uid TEXT NOT NULL,
        target TEXT NOT NULL,
        healthy INTEGER NOT NULL,
        latency_ms REAL NOT NULL,
        probed_at INTEGER NOT NULL
      );
      CREATE INDEX probe_history_by_proxy ON probe_history (proxy_uid, probed_at);
      CREATE INDEX probe_history_by_time ON probe_history (probed_at);`,
  },
  {
    // server/control/sampler: per-VM and per-host rates every sampling interval, consolidated like
    // an RRD (stats-history.ts): bucket_ms is the span a row averages, 0 for a raw sample; span_ms
    // the time its rates cover (null when it has none: the first sample, a counter reset).
    version: 6,
    name: 'stats history',
    up: `
      CREATE TABLE vm_stats (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        proxy_uid TEXT NOT NULL,
        provider TEXT NOT NULL,
        target TEXT NOT NULL,
        domain TEXT NOT NULL,
        sampled_at BIGINT NOT NULL,
        bucket_ms INTEGER NOT NULL,
        span_ms INTEGER,
        cpu_percent REAL,
        memory_bytes REAL,
        memory_total_bytes REAL,
        net_rx_bps REAL,
        net_tx_bps REAL,
        disk_read_bps REAL,
        disk_write_bps REAL
      );
      CREATE INDEX vm_stats_by_proxy ON vm_stats (proxy_uid, sampled_at);
      CREATE INDEX vm_stats_by_host ON vm_stats (provider, target, sampled_at);
      CREATE INDEX vm_stats_by_time ON vm_stats (sampled_at);
      CREATE TABLE host_stats (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        provider TEXT NOT NULL,
        target TEXT NOT NULL,
        sampled_at BIGINT NOT NULL,
        bucket_ms INTEGER NOT NULL,
        cpu_percent REAL,
        memory_used_bytes REAL,
        memory_total_bytes REAL
      );
      CREATE INDEX host_stats_by_host ON host_stats (provider, target, sampled_at);
      CREATE INDEX host_stats_by_time ON host_stats (sampled_at);`,
  },
  {
    // server/cluster: every replica's heartbeat, and since when the leader leads (for /api/cluster).
    version: 7,
    name: 'replicas',
    up: `
      CREATE TABLE replicas (
        id TEXT PRIMARY KEY,
        address TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL,
        leader_since INTEGER
      );`,
  },
  {
    // server/control/proxy-set-*: sets of Proxies kept at a count (members are Proxy records
    // labelled proxyset=<name>); status holds conditions, rollout, replacement history, hosts down.
    version: 8,
    name: 'proxy sets',
    up: `
      CREATE TABLE proxy_sets (
        uid TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        spec TEXT NOT NULL,
        status TEXT NOT NULL,
        generation INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        deletion_requested_at TEXT
      );`,
  },
  {
    // server/auth/gateway-tokens: the crawlers' gateway passwords, a kind apart from API tokens
    // (so neither can stand in for the other), stored like them by the sha256 of their secret.
    version: 9,
    name: 'gateway tokens',
    up: `
      CREATE TABLE gateway_tokens (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
      );`,
  },
  {
    // server/gateway/traffic-sync: what each replica's gateway moved, per Proxy, per gateway token
    // and per (Proxy, failure cause), added as deltas under the replica's id (so a restart, whose
    // counters start at 0, never takes a total back); open_now is the replica's open tunnels at
    // its last flush. Replicas gone for good are folded into replica_id ''.
    version: 10,
    name: 'gateway traffic',
    up: `
      CREATE TABLE gateway_traffic (
        replica_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        cause TEXT NOT NULL,
        bytes_in INTEGER NOT NULL,
        bytes_out INTEGER NOT NULL,
        connections INTEGER NOT NULL,
        open_now INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (replica_id, kind, name, cause)
      );`,
  },
  {
    // server/store/gateway-stats: the gateway's traffic per Proxy in the stats history, consolidated
    // with vm_stats (bucket_ms as there; the bytes are summed, not averaged). The leader writes the
    // growth of gateway_traffic's sums since its marks (the sums it last charted, per Proxy name),
    // seeded here so the traffic counted before the history existed is not charted as one spike.
    version: 11,
    name: 'gateway stats',
    up: `
      CREATE TABLE gateway_stats (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        proxy_uid TEXT NOT NULL,
        sampled_at BIGINT NOT NULL,
        bucket_ms INTEGER NOT NULL,
        bytes_in INTEGER NOT NULL,
        bytes_out INTEGER NOT NULL
      );
      CREATE INDEX gateway_stats_by_proxy ON gateway_stats (proxy_uid, sampled_at);
      CREATE INDEX gateway_stats_by_time ON gateway_stats (sampled_at);
      CREATE TABLE gateway_stats_marks (
        name TEXT PRIMARY KEY,
        bytes_in INTEGER NOT NULL,
        bytes_out INTEGER NOT NULL
      );
      INSERT INTO gateway_stats_marks (name, bytes_in, bytes_out)
        SELECT name, SUM(bytes_in), SUM(bytes_out) FROM gateway_traffic WHERE kind = 'proxy' GROUP BY name;`,
  },
  {
    // server/store/provider-health-pool: a health target's pool facts typed (JSON: name, state,
    // capacityBytes, availableBytes). Rows written before it have NULL here and are read from the
    // same facts as text in `details`.
    version: 12,
    name: 'provider health pool',
    up: `
      ALTER TABLE provider_health ADD COLUMN pool TEXT;
      ALTER TABLE provider_health_history ADD COLUMN pool TEXT;`,
  },
  {
    // server/store/proxies: each Proxy's instance name (server/store/instance-name), indexed, so an
    // instance event finds its Proxy with one lookup (controller-runtime's field index). Rows written
    // before it have NULL here; the lookup names them when it meets them.
    version: 13,
    name: 'proxy instance names',
    up: `
      ALTER TABLE proxies ADD COLUMN instance_name TEXT;
      CREATE INDEX proxies_by_instance_name ON proxies (instance_name);`,
  },
];

/**
 * The migrations are written in SQLite's dialect; PostgreSQL gets them through this table of
 * rewrites (its integer columns hold epoch milliseconds, so 64-bit), or a migration's own
 * `postgres` text where a rewrite would not do.
 */
const postgresRewrites: ReadonlyArray<[RegExp, string]> = [
  [/\bINTEGER PRIMARY KEY AUTOINCREMENT\b/g, 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY'],
  [/\bINTEGER\b/g, 'BIGINT'],
  [/\bREAL\b/g, 'DOUBLE PRECISION'],
  [/\bBLOB\b/g, 'BYTEA'],
];

export function migrationDdl(migration: Migration, engine: Engine): string {
  if (engine === 'sqlite') return migration.up;
  return migration.postgres ?? postgresRewrites.reduce((ddl, [pattern, replacement]) => ddl.replace(pattern, replacement), migration.up);
}

/** Applies every migration above the database's version; returns the versions applied. */
export async function migrate(db: SqlDatabase, list: readonly Migration[] = migrations): Promise<number[]> {
  const known = list.reduce((max, migration) => Math.max(max, migration.version), 0);
  const current = await db.schemaVersion();
  if (current > known) throw new StoreVersionError(current, known);
  const pending = [...list].filter((migration) => migration.version > current).sort((a, b) => a.version - b.version);
  const applied: number[] = [];
  for (const migration of pending) {
    try {
      if (await db.applyMigration({ ddl: migrationDdl(migration, db.engine), version: migration.version })) applied.push(migration.version);
    } catch (err) {
      throw new StoreMigrationError({ version: migration.version, migrationName: migration.name, cause: err });
    }
  }
  return applied;
}
