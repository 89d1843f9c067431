// Opens the database: PostgreSQL when a DATABASE_URL is given, otherwise the SQLite file in the
// data directory. SQLite runs in WAL so readers never block the writer, with synchronous=NORMAL,
// which in WAL mode loses nothing on a process kill (only an OS crash can drop the last commits);
// the directory and its files are made private first (file-modes.ts). Migrations run before
// anyone else touches it.
import { join } from 'node:path';
import type { Logger } from '@/server/telemetry/logger';
import { secureDataDir } from './file-modes';
import { migrate, type Migration, migrations } from './migrations';
import { PostgresDatabase } from './postgres';
import type { SqlDatabase } from './sql';
import { SqliteDatabase } from './sqlite';

export const databaseFileName = 'kvm2-proxies.db';

export interface OpenDatabaseOptions {
  /** the data directory (created 0700 when missing); the SQLite file inside it is `kvm2-proxies.db` */
  dataDir: string;
  /** postgres://…: the store lives in that PostgreSQL database instead */
  databaseUrl?: string;
  migrations?: readonly Migration[];
  /** told about every permission tightened at open */
  logger?: Logger;
}

export function openSqliteFile(options: { dataDir: string; logger?: Logger }): SqliteDatabase {
  const file = join(options.dataDir, databaseFileName);
  for (const change of secureDataDir({ dataDir: options.dataDir, databaseFile: file })) {
    options.logger?.warn(
      change,
      `tightened the permissions of ${change.path} from ${change.from} to ${change.to}: the data directory holds the password hash and cloud-init`,
    );
  }
  const db = SqliteDatabase.openFile(file);
  try {
    db.raw.pragma('journal_mode = WAL');
    db.raw.pragma('synchronous = NORMAL');
    db.raw.pragma('busy_timeout = 5000');
    db.raw.pragma('foreign_keys = ON');
    return db;
  } catch (err) {
    db.raw.close();
    throw err;
  }
}

/** Connects (SQLite opens its file at once, PostgreSQL connects on the first statement). */
export function connectDatabase(options: OpenDatabaseOptions): SqlDatabase {
  return options.databaseUrl ? PostgresDatabase.connect({ url: options.databaseUrl }) : openSqliteFile(options);
}

/** Connects and brings the schema up to date. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<SqlDatabase> {
  const db = connectDatabase(options);
  try {
    await migrate(db, options.migrations ?? migrations);
    return db;
  } catch (err) {
    await db.close();
    throw err;
  }
}
