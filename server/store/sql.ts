// The one seam between the record modules and a database engine: statements written once with `?`
// placeholders in the SQL both engines speak, run through an executor that answers with promises.
// SQLite (better-sqlite3, in process) and PostgreSQL (pg, over the network) each implement it.
export type Engine = 'sqlite' | 'postgres';

export type SqlValue = string | number | boolean | null | Buffer;

export interface RunResult {
  /** rows inserted, updated or deleted */
  changes: number;
}

/** Runs statements; inside a transaction, every statement belongs to it. */
export interface SqlExecutor {
  readonly engine: Engine;
  all<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  get<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<RunResult>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. Inside
   * a transaction this just runs `work` there (one commit for the whole).
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}

export interface SqlDatabase extends SqlExecutor {
  /** the schema version recorded in the database (0 when new) */
  schemaVersion(): Promise<number>;
  /**
   * Runs `ddl` and records `version` in one transaction, under a lock no other opener shares;
   * false (nothing done) when the database reached `version` meanwhile.
   */
  applyMigration(options: { ddl: string; version: number }): Promise<boolean>;
  close(): Promise<void>;
}

/** `?` → `$1, $2, …` for PostgreSQL (our statements hold no `?` inside literals). */
export function numberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
