// Opens the SQLite database in the data directory: WAL so readers never block the writer, and
// synchronous=NORMAL, which in WAL mode loses nothing on a process kill (only an OS crash can
// drop the last commits). Migrations run before anyone else touches it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { migrate, type Migration, migrations } from './migrations';

export const databaseFileName = 'kvm2-proxies.db';

export interface OpenDatabaseOptions {
  /** the data directory (created when missing); the file inside it is `kvm2-proxies.db` */
  dataDir: string;
  migrations?: readonly Migration[];
}

export function openDatabase(options: OpenDatabaseOptions): Database {
  mkdirSync(options.dataDir, { recursive: true });
  const db = new BetterSqlite3(join(options.dataDir, databaseFileName));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    migrate(db, options.migrations ?? migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
