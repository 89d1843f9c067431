// Admin CLI: copies every record of one store into another, empty one, e.g. an existing SQLite
// store into PostgreSQL before running several replicas. Stop the server first (a copy of a store
// being written may miss the last changes).
//
//   npm run store:copy -- --from sqlite --to postgres://user:password@host:5432/kvm2
//   npm run store:copy -- --from postgres://... --to sqlite      (back; DATA_DIR must hold no store)
//
// `sqlite` is the store in DATA_DIR (default ./data). Exit 0 when copied, 1 when the copy failed
// (nothing is written then), 2 for a bad command line.
import { parseArgs } from 'node:util';
import { settingsFromEnv } from '@/server/control/settings';
import { openStore, type Store } from '@/server/store';
import { copyStore, StoreCopyError } from '@/server/store/copy';
import { redactUrl } from '@/server/telemetry/redact-url';

const usage = 'usage: npm run store:copy -- --from sqlite|postgres://... --to sqlite|postgres://...   (sqlite: the store in DATA_DIR, default ./data)';

const isPostgres = (value: string) => /^postgres(ql)?:\/\//.test(value);

function location(value: string | undefined, dataDir: string): { dataDir: string; databaseUrl?: string } | undefined {
  if (value === 'sqlite') return { dataDir };
  if (value !== undefined && isPostgres(value)) return { dataDir, databaseUrl: value };
  return undefined;
}

const describe = (where: { dataDir: string; databaseUrl?: string }) => (where.databaseUrl ? redactUrl(where.databaseUrl) : `SQLite in ${where.dataDir}`);

async function main(argv: string[]): Promise<number> {
  let values: { from?: string; to?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { from: { type: 'string' }, to: { type: 'string' } }, strict: true }));
  } catch {
    console.error(usage);
    return 2;
  }
  const { dataDir } = settingsFromEnv({ ...process.env, DATABASE_URL: undefined });
  const from = location(values.from, dataDir);
  const to = location(values.to, dataDir);
  if (!from || !to || values.from === values.to) {
    console.error(usage);
    return 2;
  }
  const opened: Store[] = [];
  try {
    const source = await openStore(from);
    opened.push(source);
    const destination = await openStore(to);
    opened.push(destination);
    const copied = await copyStore({ from: source, to: destination });
    const total = Object.values(copied).reduce((sum, rows) => sum + rows, 0);
    console.log(`copied ${total} rows from ${describe(from)} to ${describe(to)}: ${Object.entries(copied).map(([table, rows]) => `${table} ${rows}`).join(', ')}`);
    return 0;
  } catch (err) {
    console.error(err instanceof StoreCopyError ? err.message : `copying failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await Promise.all(opened.map((store) => store.close()));
  }
}

process.exitCode = await main(process.argv.slice(2));
