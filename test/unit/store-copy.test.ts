// `npm run store:copy`: every record of a SQLite store lands in PostgreSQL, so the admin logs in
// with the same password and session, tokens still verify, the Proxies keep their status, events
// and history, and new rows continue after the copied ids; a non-empty destination is refused
// with nothing written.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AuthService } from '@/server/auth/service';
import { openStore } from '@/server/store';
import { copyStore, StoreCopyError } from '@/server/store/copy';
import { storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
const cheapCost = { N: 1024, r: 8, p: 1 };
const spec = { mode: 'Static' as const, address: '192.0.2.10', port: 3128, labels: { pool: 'a' } };

async function filledSqlite() {
  const where = await engines.location('sqlite');
  const store = await openStore(where);
  const auth = new AuthService({ db: store.sql, cost: cheapCost });
  await auth.init();
  await auth.setup({ password: 'the admin password', setupCode: (await auth.pendingSetupCode())!, client: 'c' });
  const session = await auth.login({ password: 'the admin password', client: 'c' });
  const token = await auth.createToken('crawler');
  await store.proxies.insert({ uid: 'u1', name: 'alpha', spec, now: '2026-12-01T10:00:00.000Z' });
  await store.proxies.writeStatus('u1', { phase: 'Running', ip: '192.0.2.10', conditions: [] });
  for (let i = 0; i < 3; i++) await store.events.record('u1', { type: 'Normal', reason: `Step${i}`, message: `step ${i}`, atMs: 1_000 + i });
  await store.probes.record({ proxyUid: 'u1', target: '192.0.2.10:3128', healthy: true, latencyMs: 1.5, probedAtMs: 2_000 });
  await store.health.record({
    provider: 'kvm',
    targets: [{ name: 'h1', ready: true, reason: 'Reachable', message: '', details: {}, latencyMs: 2, checkedAt: new Date(3_000).toISOString() }],
    nowMs: 3_000,
  });
  return { where, store, session, token };
}

describe('copying a SQLite store into PostgreSQL', () => {
  it('carries every record over: the same login, session and token work, the Proxy keeps its status, events and history', async () => {
    const { store: source, session, token } = await filledSqlite();
    const target = await engines.open('postgres');
    const copied = await copyStore({ from: source, to: target });
    expect(copied).toMatchObject({
      proxies: 1,
      proxy_events: 3,
      probe_history: 1,
      provider_health: 1,
      provider_health_history: 1,
      admin_password: 1,
      auth_secrets: 1,
      sessions: 1,
      api_tokens: 1,
    });

    const auth = new AuthService({ db: target.sql, cost: cheapCost });
    await auth.init();
    expect(await auth.sessionValid(session.cookieValue)).toBe(true);
    expect(await auth.tokenPrincipal(token.token)).toEqual({ kind: 'token', tokenId: token.id });
    await auth.login({ password: 'the admin password', client: 'c' });
    expect(await target.proxies.get('alpha')).toEqual(await source.proxies.get('alpha'));
    expect(await target.events.list('u1')).toEqual(await source.events.list('u1'));
    expect(await target.probes.history({ proxyUid: 'u1', sinceMs: 0 })).toEqual(await source.probes.history({ proxyUid: 'u1', sinceMs: 0 }));
    expect(await target.health.latest()).toEqual(await source.health.latest());
    // New rows get ids after the copied ones.
    await target.events.record('u1', { type: 'Warning', reason: 'Later', message: 'after the copy', atMs: 9_000 });
    expect((await target.events.list('u1'))[0]).toMatchObject({ id: 4, reason: 'Later' });
  });

  it('refuses a destination that holds records, writing nothing', async () => {
    const { store: source } = await filledSqlite();
    const target = await engines.open('postgres');
    await target.proxies.insert({ uid: 'other', name: 'other', spec, now: '2026-12-01T10:00:00.000Z' });
    await expect(copyStore({ from: source, to: target })).rejects.toThrow(StoreCopyError);
    expect(await target.proxies.names()).toEqual(['other']);
    expect(await target.sql.all(`SELECT * FROM admin_password`)).toEqual([]);
  });

  it('runs as DATABASE_URL=postgres://... npm run store:copy -- --from sqlite --to postgres, and explains its usage', { timeout: 60_000 }, async () => {
    const { where, store } = await filledSqlite();
    await store.close();
    const databaseUrl = (await engines.location('postgres')).databaseUrl!;
    const done = await runCopy(['--from', 'sqlite', '--to', 'postgres'], { DATA_DIR: where.dataDir, DATABASE_URL: databaseUrl });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^copied 11 rows from SQLite in .* to postgres:\/\/127\.0\.0\.1:\d+\/test_\d+_\d+: /);
    const copy = await openStore({ dataDir: where.dataDir, databaseUrl });
    expect(await copy.proxies.names()).toEqual(['alpha']);
    await copy.close();
    // a URL without a password may still be given on the command line
    const again = await runCopy(['--from', 'sqlite', '--to', databaseUrl], { DATA_DIR: where.dataDir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the destination is not empty');
    const bad = await runCopy(['--from', 'sqlite'], { DATA_DIR: where.dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('npm run store:copy -- --from sqlite|postgres --to sqlite|postgres');
  });

  it(
    'refuses a password on the command line (the process list and shell history show it), naming the variables to use instead',
    { timeout: 60_000 },
    async () => {
      const refused = await runCopy(['--from', 'sqlite', '--to', 'postgres://kvm2:hunter2@127.0.0.1:5432/kvm2'], { DATA_DIR: '/nonexistent' });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--to: .*password.*DATABASE_URL.*--to postgres.*PGPASSWORD/);
      expect(refused.stderr + refused.stdout).not.toContain('hunter2');
      const unset = await runCopy(['--from', 'sqlite', '--to', 'postgres'], { DATA_DIR: '/nonexistent', DATABASE_URL: '' });
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain('--to postgres reads the URL from DATABASE_URL, which is not set');
      const insecure = await runCopy(['--from', 'sqlite', '--to', 'postgres'], {
        DATA_DIR: '/nonexistent',
        DATABASE_URL: 'postgres://kvm2:hunter2@db.lan/kvm2',
      });
      expect(insecure.code).toBe(2);
      expect(insecure.stderr).toMatch(/^DATABASE_URL: the database host db.lan is not this machine/);
    },
  );
});

function runCopy(args: string[], env: Record<string, string>) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/store-copy.ts', ...args], {
    env: { ...process.env, DATABASE_URL: undefined, ...env },
  }).then(
    (out) => ({ code: 0, ...out }),
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
}
