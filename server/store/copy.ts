// Copies every record of one store into another, empty one: moving a SQLite store into PostgreSQL
// (or back). Both are brought to the current schema first; the tables are read from the source's
// catalogue, so a table a later migration adds is copied too. The destination is written in one
// transaction: a failed copy leaves it empty. Replica heartbeats are not copied (they describe
// processes, not records).
import type { Store } from './index';
import type { SqlExecutor, SqlValue } from './sql';

export class StoreCopyError extends Error {
  readonly code = 'ERR_STORE_COPY';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreCopyError';
  }
}

/** Not copied: the schema's own bookkeeping and the replicas' heartbeats. */
const skipped = new Set(['schema_version', 'replicas']);

async function tablesOf(store: Store): Promise<string[]> {
  const rows =
    store.engine === 'sqlite'
      ? await store.sql.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      : await store.sql.all<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`);
  return rows.map((row) => row.name).filter((name) => !skipped.has(name));
}

/** Table and column names come from the catalogue, never from input; quoted all the same. */
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function copyTable(options: { from: Store; to: SqlExecutor; table: string }): Promise<number> {
  const rows = await options.from.sql.all<Record<string, SqlValue>>(`SELECT * FROM ${quoted(options.table)}`);
  for (const row of rows) {
    const columns = Object.keys(row);
    await options.to.run(
      `INSERT INTO ${quoted(options.table)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      columns.map((column) => row[column] ?? null),
    );
  }
  return rows.length;
}

/** After explicit ids, PostgreSQL's identity sequences must continue past them. */
async function continueIdentities(to: Store, tx: SqlExecutor, table: string): Promise<void> {
  if (to.engine !== 'postgres') return;
  const identity = await tx.get<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES'`,
    [table],
  );
  if (!identity) return;
  await tx.run(`SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT MAX(${quoted(identity.name)}) FROM ${quoted(table)}), 0) + 1, false)`, [
    table,
    identity.name,
  ]);
}

/** Copies every table of `from` into `to` (which must be empty); returns the rows copied per table. */
export async function copyStore(options: { from: Store; to: Store }): Promise<Record<string, number>> {
  const { from, to } = options;
  const tables = await tablesOf(from);
  const present = new Set(await tablesOf(to));
  const unknown = tables.filter((table) => !present.has(table));
  if (unknown.length > 0) throw new StoreCopyError(`the destination has no table ${unknown.join(', ')}: is it at the same version as the source?`);
  for (const table of tables) {
    if (await to.sql.get(`SELECT 1 AS found FROM ${quoted(table)} LIMIT 1`)) {
      throw new StoreCopyError(`the destination is not empty (table ${table} has rows): copy into a new, empty database`);
    }
  }
  const copied: Record<string, number> = {};
  await to.sql.transaction(async (tx) => {
    for (const table of tables) {
      copied[table] = await copyTable({ from, to: tx, table });
      await continueIdentities(to, tx, table);
    }
  });
  return copied;
}
