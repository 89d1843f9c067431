import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseFileName, openDatabase } from '@/server/store/database';
import { StoreMigrationError, StoreVersionError } from '@/server/store/errors';
import { type Migration, migrations, schemaVersion } from '@/server/store/migrations';
import { tempDir } from '@/test/fakes/control-plane';

let dir: ReturnType<typeof tempDir>;
afterEach(() => dir?.remove());

const tables = (db: BetterSqlite3.Database) =>
  db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all();

describe('store migrations', () => {
  it('bring a new database to the latest version, in WAL mode, under DATA_DIR', () => {
    dir = tempDir();
    const dataDir = join(dir.path, 'nested', 'data');
    const db = openDatabase({ dataDir });
    expect(schemaVersion(db)).toBe(migrations.at(-1)!.version);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(tables(db)).toEqual(['admin_password', 'api_tokens', 'auth_secrets', 'host_stats', 'probe_history', 'provider_health', 'provider_health_history', 'proxies', 'proxy_events', 'sessions', 'vm_stats']);
    expect(db.name).toBe(join(dataDir, databaseFileName));
    db.close();
  });

  it('apply only what is missing to an older database, keeping its data', () => {
    dir = tempDir();
    const v1 = openDatabase({ dataDir: dir.path, migrations: migrations.slice(0, 1) });
    v1.prepare(`INSERT INTO proxies (uid, name, spec, status, created_at, updated_at) VALUES ('u1', 'alpha', '{}', '{}', 't', 't')`).run();
    v1.close();

    const latest = openDatabase({ dataDir: dir.path });
    expect(schemaVersion(latest)).toBe(migrations.at(-1)!.version);
    expect(latest.prepare(`SELECT name FROM proxies`).pluck().all()).toEqual(['alpha']);
    latest.close();
  });

  it('run nothing on a database that is already current', () => {
    dir = tempDir();
    openDatabase({ dataDir: dir.path }).close();
    const broken: Migration[] = migrations.map((migration) => ({ ...migration, up: 'THIS IS NOT SQL' }));
    const again = openDatabase({ dataDir: dir.path, migrations: broken });
    expect(schemaVersion(again)).toBe(migrations.at(-1)!.version);
    again.close();
  });

  it('roll a failing migration back whole, leaving the previous version', () => {
    dir = tempDir();
    const latestVersion = migrations.at(-1)!.version;
    const failing: Migration = { version: latestVersion + 1, name: 'half done', up: `CREATE TABLE extra (id INTEGER); INSERT INTO nowhere VALUES (1);` };
    expect(() => openDatabase({ dataDir: dir.path, migrations: [...migrations, failing] })).toThrow(StoreMigrationError);
    const db = new BetterSqlite3(join(dir.path, databaseFileName));
    expect(schemaVersion(db)).toBe(latestVersion);
    expect(tables(db)).not.toContain('extra');
    db.close();
  });

  it('refuse a database written by a newer server', () => {
    dir = tempDir();
    const db = openDatabase({ dataDir: dir.path });
    db.pragma('user_version = 99');
    db.close();
    expect(() => openDatabase({ dataDir: dir.path })).toThrow(StoreVersionError);
  });
});
