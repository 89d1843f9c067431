// A consistent copy of the live store: SQLite's online backup API copies the database and restarts
// when the server writes meanwhile, so the copy is one committed state whatever the server is doing.
// It copies every page in one step: in steps of 100 pages (better-sqlite3's default, a step each
// turn of the event loop) a server writing more often than a step takes restarts the copy for ever
// (a unit test writing every millisecond never finished on a busy machine). One step holds only a
// read transaction, which in WAL mode does not stop the server's writes. The copy is made 0600 (it holds what the store holds), never over an existing
// file. Restore: stop the server, put the copy in place as DATA_DIR/kvm2-proxies.db (deleting the
// -wal and -shm files next to it), start the server.
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { databaseFileName } from './database';
import { dataFileMode } from './file-modes';

/** better-sqlite3's largest step: every page left. */
const allRemainingPages = 0x7fffffff;

export class BackupError extends Error {
  readonly code = 'ERR_BACKUP';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackupError';
  }
}

export interface BackupResult {
  destination: string;
  pages: number;
  /** the copy's schema version (PRAGMA user_version) */
  schemaVersion: number;
}

export async function backupStore(options: { dataDir: string; destination: string }): Promise<BackupResult> {
  const source = join(options.dataDir, databaseFileName);
  if (!existsSync(source)) throw new BackupError(`no store at ${source}: is DATA_DIR right?`);
  if (existsSync(options.destination)) throw new BackupError(`${options.destination} exists already: choose a new file name`);
  const db = new BetterSqlite3(source, { fileMustExist: true });
  const umask = process.umask(0o077);
  let pages = 0;
  try {
    db.pragma('busy_timeout = 5000');
    const progress = await db.backup(options.destination, { progress: () => allRemainingPages });
    pages = progress.totalPages;
  } catch (err) {
    throw new BackupError(`backing up ${source} to ${options.destination} failed: ${(err as Error).message}`, { cause: err });
  } finally {
    process.umask(umask);
    db.close();
  }
  chmodSync(options.destination, dataFileMode);
  const copy = new BetterSqlite3(options.destination, { readonly: true });
  try {
    const integrity = copy.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`the copy at ${options.destination} fails its integrity check: ${String(integrity)}`);
    return { destination: options.destination, pages, schemaVersion: copy.pragma('user_version', { simple: true }) as number };
  } finally {
    copy.close();
  }
}
