// The data directory holds the password hash, the session key and cloud-init: a new one is 0700
// with 0600 files (the WAL files included), and an existing looser one is tightened at open, with
// a log line per change.
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseFileName, openDatabase, type OpenDatabaseOptions } from '@/server/store/database';
import type { SqliteDatabase } from '@/server/store/sqlite';
import { createLogger } from '@/server/telemetry/logger';
import { tempDir } from '@/test/fakes/control-plane';

let dir: ReturnType<typeof tempDir>;
afterEach(() => dir?.remove());

/** The SQLite handle itself, for what only SQLite has (files, pragmas). */
const openRaw = async (options: OpenDatabaseOptions) => ((await openDatabase(options)) as SqliteDatabase).raw;

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('data directory permissions', () => {
  it('creates the directory 0700 and the database with its WAL files 0600, whatever the umask', async () => {
    dir = tempDir();
    const dataDir = join(dir.path, 'data');
    const previous = process.umask(0o022);
    try {
      const db = await openRaw({ dataDir });
      db.prepare(`INSERT INTO auth_secrets (name, value) VALUES ('x', x'00')`).run();
      expect(modeOf(dataDir)).toBe('700');
      for (const file of [databaseFileName, `${databaseFileName}-wal`, `${databaseFileName}-shm`]) expect(modeOf(join(dataDir, file)), file).toBe('600');
      db.close();
    } finally {
      process.umask(previous);
    }
  });

  it('tightens an existing directory and its files at open, logging each change', async () => {
    dir = tempDir();
    const dataDir = join(dir.path, 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    new BetterSqlite3(join(dataDir, databaseFileName)).close();
    chmodSync(join(dataDir, databaseFileName), 0o644);
    writeFileSync(join(dataDir, 'backup.db'), 'x');
    chmodSync(join(dataDir, 'backup.db'), 0o664);
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    (await openRaw({ dataDir, logger })).close();
    expect(modeOf(dataDir)).toBe('700');
    expect(modeOf(join(dataDir, databaseFileName))).toBe('600');
    expect(modeOf(join(dataDir, 'backup.db'))).toBe('600');
    const changes = lines.map((line) => JSON.parse(line) as { path: string; from: string; to: string; msg: string });
    expect(changes.map(({ path, from, to }) => ({ path, from, to })).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: dataDir, from: '0755', to: '0700' },
      { path: join(dataDir, 'backup.db'), from: '0664', to: '0600' },
      { path: join(dataDir, databaseFileName), from: '0644', to: '0600' },
    ]);
    expect(changes[0]!.msg).toContain('tightened');
    lines.length = 0;
    (await openRaw({ dataDir, logger })).close();
    expect(lines).toEqual([]);
  });
});
