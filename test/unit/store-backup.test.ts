// `npm run backup -- FILE`: a consistent copy of the live store while the server writes to it,
// made 0600, never over an existing file; and the copy restores (it opens as the store).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BackupError, backupStore } from '@/server/store/backup';
import { databaseFileName, openDatabase, type OpenDatabaseOptions } from '@/server/store/database';
import type { SqliteDatabase } from '@/server/store/sqlite';
import { migrations } from '@/server/store/migrations';
import { tempDir } from '@/test/fakes/control-plane';

let dir: ReturnType<typeof tempDir>;
afterEach(() => dir?.remove());

/** The SQLite handle itself, for what only SQLite has (files, pragmas). */
const openRaw = async (options: OpenDatabaseOptions) => ((await openDatabase(options)) as SqliteDatabase).raw;

const insertEvent = (db: BetterSqlite3.Database, index: number) =>
  db.prepare(`INSERT INTO auth_secrets (name, value) VALUES (?, ?)`).run(`secret-${index}`, Buffer.alloc(64, index % 256));

describe('store backup', () => {
  it('copies the store consistently while it is being written, 0600, and the copy opens as a store', async () => {
    dir = tempDir();
    const dataDir = join(dir.path, 'data');
    const db = await openRaw({ dataDir });
    for (let i = 0; i < 2000; i++) insertEvent(db, i);
    let written = 2000;
    const writer = setInterval(() => {
      for (let i = 0; i < 50; i++) insertEvent(db, written++);
    }, 1);
    const destination = join(dir.path, 'copy.db');
    try {
      const result = await backupStore({ dataDir, destination });
      expect(result.schemaVersion).toBe(migrations.at(-1)!.version);
      expect(result.pages).toBeGreaterThan(0);
    } finally {
      clearInterval(writer);
    }
    expect((statSync(destination).mode & 0o777).toString(8)).toBe('600');
    const copied = new BetterSqlite3(destination, { readonly: true });
    const count = copied.prepare(`SELECT count(*) FROM auth_secrets`).pluck().get() as number;
    // A prefix of the writes, in order: every row up to the count, none after.
    expect(count).toBeGreaterThanOrEqual(2000);
    expect(copied.prepare(`SELECT max(CAST(substr(name, 8) AS INTEGER)) FROM auth_secrets`).pluck().get()).toBe(count - 1);
    copied.close();
    db.close();

    // Restoring is putting the copy in place: it opens as the store, migrations having nothing to do.
    const restoredDir = join(dir.path, 'restored');
    mkdirSync(restoredDir);
    copyFileSync(destination, join(restoredDir, databaseFileName));
    const restored = await openRaw({ dataDir: restoredDir });
    expect(restored.prepare(`SELECT count(*) FROM auth_secrets`).pluck().get()).toBe(count);
    restored.close();
  });

  it('refuses an existing destination and a data directory without a store, writing nothing', async () => {
    dir = tempDir();
    const dataDir = join(dir.path, 'data');
    (await openRaw({ dataDir })).close();
    const existing = join(dir.path, 'taken.db');
    writeFileSync(existing, 'keep me');
    await expect(backupStore({ dataDir, destination: existing })).rejects.toThrow(BackupError);
    expect(statSync(existing).size).toBe(7);
    await expect(backupStore({ dataDir: join(dir.path, 'nothing-here'), destination: join(dir.path, 'x.db') })).rejects.toThrow(/no store at/);
  });

  it('runs as npm run backup -- FILE with DATA_DIR, and explains its usage', async () => {
    dir = tempDir();
    const dataDir = join(dir.path, 'data');
    (await openRaw({ dataDir })).close();
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/backup.ts', ...args], { env: { ...process.env, DATA_DIR: dataDir } }).then(
        (out) => ({ code: 0, ...out }),
        (err: { code: number; stdout: string; stderr: string }) => err,
      );
    const done = await run([join(dir.path, 'cli.db')]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('backed up the store to');
    const usage = await run([]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run backup -- <file>');
    // Two node processes loading tsx: over 5 s on a busy 2-core machine.
  }, 60_000);
});
