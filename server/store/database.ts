// Opens the SQLite database in the data directory: WAL so readers never block the writer, and
// synchronous=NORMAL, which in WAL mode loses nothing on a process kill (only an OS crash can
// drop the last commits). The directory and its files are made private first (file-modes.ts).
// Migrations run before anyone else touches it.
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { Logger } from '@/server/telemetry/logger';
import { secureDataDir } from './file-modes';
import { migrate, type Migration, migrations } from './migrations';

export const databaseFileName = 'kvm2-proxies.db';

export interface OpenDatabaseOptions {
  /** the data directory (created 0700 when missing); the file inside it is `kvm2-proxies.db` */
  dataDir: string;
  migrations?: readonly Migration[];
  /** told about every permission tightened at open */
  logger?: Logger;
}

export function openDatabase(options: OpenDatabaseOptions): Database {
  const file = join(options.dataDir, databaseFileName);
  for (const change of secureDataDir({ dataDir: options.dataDir, databaseFile: file })) {
    options.logger?.warn(change, `tightened the permissions of ${change.path} from ${change.from} to ${change.to}: the data directory holds the password hash and cloud-init`);
  }
  const db = new BetterSqlite3(file);
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
