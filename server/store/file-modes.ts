// The data directory holds the password hash, the session signing key and cloud-init: only the
// server's own user may read it. The directory is created 0700 and the database files 0600
// (SQLite gives its -wal and -shm files the database file's mode); looser modes found at start,
// left by an older version or a copy, are tightened, each with a log line.
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const dataDirMode = 0o700;
export const dataFileMode = 0o600;

export interface Tightened {
  path: string;
  from: string;
  to: string;
}

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

function tighten(path: string, wanted: number, tightened: Tightened[]): void {
  const mode = statSync(path).mode & 0o777;
  if ((mode & ~wanted) === 0) return;
  chmodSync(path, mode & wanted);
  tightened.push({ path, from: octal(mode), to: octal(mode & wanted) });
}

/** Creates the directory (0700) and the database file (0600) when missing; tightens what is looser. */
export function secureDataDir(options: { dataDir: string; databaseFile: string }): Tightened[] {
  const tightened: Tightened[] = [];
  mkdirSync(options.dataDir, { recursive: true, mode: dataDirMode });
  tighten(options.dataDir, dataDirMode, tightened);
  // Created empty here with its mode, so SQLite never creates it with the umask's.
  closeSync(openSync(options.databaseFile, 'a', dataFileMode));
  for (const entry of readdirSync(options.dataDir, { withFileTypes: true })) {
    if (entry.isFile()) tighten(join(options.dataDir, entry.name), dataFileMode, tightened);
  }
  return tightened;
}
