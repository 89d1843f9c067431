// The SQLite engine behind the SqlDatabase seam. better-sqlite3 answers synchronously, so every
// statement runs at once; only a transaction spans awaits. Transactions queue one after another,
// and while any is queued or open, a statement from outside waits until none is: on one
// connection it would otherwise land inside the open transaction. The wait and the statement run
// in one synchronous step, so nothing can begin in between.
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import type { RunResult, SqlDatabase, SqlExecutor, SqlValue } from './sql';

type Params = readonly SqlValue[];

const bind = (params: Params | undefined): unknown[] => (params ?? []).map((value) => (typeof value === 'boolean' ? Number(value) : value));

/**
 * Prepared statements by their SQL, per connection: preparing costs several times running a small
 * statement (30 vs 5 µs), and the gateway checks a token per connection. Bounded, because a few
 * statements are built with a varying number of placeholders; SQLite re-prepares a cached one
 * itself when the schema changed.
 */
class StatementCache {
  private readonly statements = new Map<string, Statement>();
  constructor(
    private readonly db: Database,
    private readonly limit = 256,
  ) {}

  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.statements.size >= this.limit) this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

class Statements implements SqlExecutor {
  readonly engine = 'sqlite' as const;
  constructor(
    protected readonly db: Database,
    protected readonly prepared: StatementCache,
  ) {}

  /** Runs `statement` when the connection is free for it (inside a transaction: at once). */
  protected async when<T>(statement: () => T): Promise<T> {
    return statement();
  }

  all<Row>(sql: string, params?: Params): Promise<Row[]> {
    return this.when(() => this.prepared.get(sql).all(...bind(params)) as Row[]);
  }

  get<Row>(sql: string, params?: Params): Promise<Row | undefined> {
    return this.when(() => this.prepared.get(sql).get(...bind(params)) as Row | undefined);
  }

  run(sql: string, params?: Params): Promise<RunResult> {
    return this.when(() => ({ changes: this.prepared.get(sql).run(...bind(params)).changes }));
  }

  /** Already inside the transaction: `work` joins it. */
  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return work(this);
  }
}

export class SqliteDatabase extends Statements implements SqlDatabase {
  /** transactions queued or open */
  private queued = 0;
  /** settles when the last transaction queued so far has ended */
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly raw: Database) {
    super(raw, new StatementCache(raw));
  }

  static openFile(file: string): SqliteDatabase {
    return new SqliteDatabase(new BetterSqlite3(file));
  }

  protected override async when<T>(statement: () => T): Promise<T> {
    while (this.queued > 0) await this.tail;
    return statement();
  }

  /** Runs `work` inside BEGIN IMMEDIATE … COMMIT, alone on the connection; transactions run in call order. */
  override async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    this.queued++;
    const previous = this.tail;
    let release = () => {};
    this.tail = new Promise((resolve) => (release = resolve));
    try {
      await previous;
      this.raw.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(new Statements(this.raw, this.prepared));
        this.raw.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.queued--;
      release();
    }
  }

  schemaVersion(): Promise<number> {
    return this.when(() => this.raw.pragma('user_version', { simple: true }) as number);
  }

  async applyMigration(options: { ddl: string; version: number }): Promise<boolean> {
    return this.transaction(async () => {
      if ((this.raw.pragma('user_version', { simple: true }) as number) >= options.version) return false;
      this.raw.exec(options.ddl);
      // PRAGMA takes no bound parameters; the version is an integer from our own table.
      this.raw.pragma(`user_version = ${Math.trunc(options.version)}`);
      return true;
    });
  }

  async close(): Promise<void> {
    await this.when(() => {
      if (this.raw.open) this.raw.close();
    });
  }
}
