// Admin CLI: copies every record of one store into another, empty one, e.g. an existing SQLite
// store into PostgreSQL before running several replicas. Stop the server first (a copy of a store
// being written may miss the last changes).
//
//   DATABASE_URL=postgres://user:password@host:5432/kvm2 npm run store:copy -- --from sqlite --to postgres
//   DATABASE_URL=postgres://... npm run store:copy -- --from postgres --to sqlite   (back; DATA_DIR must hold no store)
//
// `sqlite` is the store in DATA_DIR (default ./data); `postgres` is the database DATABASE_URL names,
// checked as the server checks it (TLS to a host that is not this machine). A postgres:// URL
// without a password may be given instead (pg then reads PGPASSWORD); one with a password is
// refused, since the process list and the shell history would show it. Exit 0 when copied, 1 when
// the copy failed (nothing is written then), 2 for a bad command line.
import { parseArgs } from 'node:util';
import { SettingsError, settingsFromEnv } from '@/server/control/settings';
import { openStore, type Store } from '@/server/store';
import { copyStore, StoreCopyError } from '@/server/store/copy';
import { redactUrl } from '@/server/telemetry/redact-url';
import { errorMessage } from '@/lib/error-message';

const usage =
  'usage: DATABASE_URL=postgres://... npm run store:copy -- --from sqlite|postgres --to sqlite|postgres   (sqlite: the store in DATA_DIR, default ./data; postgres: the database DATABASE_URL names)';

const isPostgres = (value: string) => /^postgres(ql)?:\/\//.test(value);

/** A command line that cannot be run as given; the message says what to do instead. */
class CommandLineError extends Error {}

function hasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return false;
  }
}

type Location = { dataDir: string; databaseUrl?: string };

function location(options: { flag: '--from' | '--to'; value: string | undefined; dataDir: string }): Location | undefined {
  const { flag, value, dataDir } = options;
  if (value === 'sqlite') return { dataDir };
  if (value === 'postgres') {
    if (!process.env.DATABASE_URL?.trim()) throw new CommandLineError(`${flag} postgres reads the URL from DATABASE_URL, which is not set`);
    // settingsFromEnv checks the URL as the server does (scheme, TLS to another machine)
    return { dataDir, databaseUrl: settingsFromEnv(process.env).databaseUrl };
  }
  if (value !== undefined && isPostgres(value)) {
    if (hasPassword(value)) {
      throw new CommandLineError(
        `${flag}: a password on the command line shows in the process list and the shell history; put the URL in DATABASE_URL and pass ${flag} postgres, or leave the password out of the URL and set PGPASSWORD`,
      );
    }
    return { dataDir, databaseUrl: settingsFromEnv({ ...process.env, DATABASE_URL: value }).databaseUrl };
  }
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
  let from: Location | undefined;
  let to: Location | undefined;
  try {
    const { dataDir } = settingsFromEnv({ ...process.env, DATABASE_URL: undefined });
    from = location({ flag: '--from', value: values.from, dataDir });
    to = location({ flag: '--to', value: values.to, dataDir });
  } catch (err) {
    if (!(err instanceof CommandLineError || err instanceof SettingsError)) throw err;
    console.error(err.message);
    return 2;
  }
  if (!from || !to || values.from === values.to || (from.databaseUrl !== undefined && from.databaseUrl === to.databaseUrl)) {
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
    console.log(
      `copied ${total} rows from ${describe(from)} to ${describe(to)}: ${Object.entries(copied)
        .map(([table, rows]) => `${table} ${rows}`)
        .join(', ')}`,
    );
    return 0;
  } catch (err) {
    console.error(err instanceof StoreCopyError ? err.message : `copying failed: ${errorMessage(err)}`);
    return 1;
  } finally {
    await Promise.all(opened.map((store) => store.close()));
  }
}

process.exitCode = await main(process.argv.slice(2));
