// The PostgreSQL engine behind the SqlDatabase seam (DATABASE_URL=postgres://…), over a pg pool.
// Epoch-ms columns are BIGINT, and SUM or AVG over integers answer NUMERIC, both of which pg hands
// back as strings by default: this pool reads them as numbers, as SQLite's driver does (safe below
// 2^53, which epoch milliseconds stay for 285,000 years).
import pg from 'pg';
import { numberedPlaceholders, type RunResult, type SqlDatabase, type SqlExecutor, type SqlValue } from './sql';

type Params = readonly SqlValue[];
type Queryable = Pick<pg.PoolClient, 'query'>;

/** int8 and numeric */
const numberOids = new Set([20, 1700]);
export const numericTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    numberOids.has(oid) ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** The advisory lock key migrations take, so two replicas starting together migrate once. */
const migrationLockKey = 0x6b766d32; // "kvm2"

/** Statements on one connection (a transaction's, or a dedicated one such as the leader's lock session). */
export class PostgresStatements implements SqlExecutor {
  readonly engine = 'postgres' as const;
  constructor(protected readonly target: Queryable) {}

  async all<Row>(sql: string, params?: Params): Promise<Row[]> {
    const result = await this.target.query(numberedPlaceholders(sql), params as unknown[] | undefined);
    return result.rows as Row[];
  }

  async get<Row>(sql: string, params?: Params): Promise<Row | undefined> {
    return (await this.all<Row>(sql, params))[0];
  }

  async run(sql: string, params?: Params): Promise<RunResult> {
    const result = await this.target.query(numberedPlaceholders(sql), params as unknown[] | undefined);
    return { changes: result.rowCount ?? 0 };
  }

  /** Already inside the transaction: `work` joins it. */
  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return work(this);
  }
}

export class PostgresDatabase extends PostgresStatements implements SqlDatabase {
  constructor(readonly pool: pg.Pool) {
    super(pool);
  }

  static connect(options: { url: string; maxConnections?: number }): PostgresDatabase {
    const pool = new pg.Pool({ connectionString: options.url, max: options.maxConnections ?? 10, types: numericTypes });
    // An idle client whose server went away emits here; the next query gets a fresh connection.
    pool.on('error', () => {});
    return new PostgresDatabase(pool);
  }

  override async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      try {
        const result = await work(new PostgresStatements(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      }
    } finally {
      client.release(broken);
    }
  }

  async schemaVersion(): Promise<number> {
    await this.ensureVersionTable();
    const row = await this.get<{ version: number }>(`SELECT version FROM schema_version WHERE id = 1`);
    return row?.version ?? 0;
  }

  private async ensureVersionTable(): Promise<void> {
    // Under the migration lock: two replicas running CREATE TABLE IF NOT EXISTS at once can both
    // pass the check, and the loser fails on a catalog index rather than skipping.
    await this.transaction(async (tx) => {
      await tx.run(`SELECT pg_advisory_xact_lock(?)`, [migrationLockKey]);
      await tx.run(`CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`);
    });
  }

  async applyMigration(options: { ddl: string; version: number }): Promise<boolean> {
    return this.transaction(async (tx) => {
      await tx.run(`SELECT pg_advisory_xact_lock(?)`, [migrationLockKey]);
      const row = await tx.get<{ version: number }>(`SELECT version FROM schema_version WHERE id = 1`);
      if ((row?.version ?? 0) >= options.version) return false;
      // No parameters: pg sends it as a simple query, which may hold several statements.
      await tx.run(options.ddl);
      await tx.run(`INSERT INTO schema_version (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version`, [options.version]);
      return true;
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
