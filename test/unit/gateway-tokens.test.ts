// Gateway tokens (issue 24): the crawlers' proxy password, a kind of its own. Stored as a hash like
// API tokens, listed without the secret, revoked for good; verify() is what the gateway calls per
// connection, so it writes last_used_at at most once a minute. An API token never verifies as a
// gateway token and a gateway token never reaches the admin API, on both store engines.
import { beforeEach, describe, expect, it } from 'vitest';
import { TokenNotFoundError } from '@/server/auth/errors';
import { AuthService } from '@/server/auth/service';
import type { SqlExecutor } from '@/server/store/sql';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
let db: SqlExecutor;
let nowMs = Date.parse('2026-05-01T10:00:00Z');
const newService = () => new AuthService({ db, cost: { N: 1024, r: 8, p: 1 }, now: () => nowMs });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );
/** The same token with its last character changed (still well-formed). */
const altered = (token: string) => token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');

describe.each(storeEngines)('gateway tokens in the %s store', (engine) => {
  beforeEach(async () => {
    db = (await engines.open(engine)).sql;
  });

  it('are shown whole once, listed without the secret, stored only as a hash, and verify to their id and name', async () => {
    const auth = newService();
    const created = await auth.gatewayTokens.create('crawler-eu');
    expect(created.token).toMatch(/^kvm2g_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.prefix).toBe(`kvm2g_${created.id}`);
    const secret = created.token.slice(created.prefix.length + 1);
    expect(await auth.gatewayTokens.list()).toEqual([{ id: created.id, name: 'crawler-eu', prefix: created.prefix, createdAt: created.createdAt }]);
    expect(JSON.stringify(await db.all(`SELECT * FROM gateway_tokens`))).not.toContain(secret);
    expect(await auth.gatewayTokens.verify(created.token)).toEqual({ id: created.id, name: 'crawler-eu' });
    // Another replica (another service over the same store) verifies it too.
    expect(await newService().gatewayTokens.verify(created.token)).toEqual({ id: created.id, name: 'crawler-eu' });
    for (const wrong of [altered(created.token), `${created.token}x`, created.token.slice(0, -1), `Basic ${created.token}`, '', secret])
      expect(await auth.gatewayTokens.verify(wrong), wrong).toBeUndefined();
  });

  it('record their last use at most once a minute, however often they are verified', async () => {
    const auth = newService();
    const created = await auth.gatewayTokens.create('crawler');
    const lastUsed = async () => (await auth.gatewayTokens.list())[0]?.lastUsedAt;
    expect(await lastUsed()).toBeUndefined();
    const first = nowMs;
    await auth.gatewayTokens.verify(created.token);
    expect(await lastUsed()).toBe(new Date(first).toISOString());
    nowMs += 59_999;
    for (let i = 0; i < 5; i++) await auth.gatewayTokens.verify(created.token);
    expect(await lastUsed()).toBe(new Date(first).toISOString());
    nowMs += 1;
    await auth.gatewayTokens.verify(created.token);
    expect(await lastUsed()).toBe(new Date(nowMs).toISOString());
    // A wrong secret is no use.
    nowMs += 120_000;
    await auth.gatewayTokens.verify(altered(created.token));
    expect(await lastUsed()).toBe(new Date(nowMs - 120_000).toISOString());
  });

  it('stop verifying once revoked; revoking an unknown id says so and changes nothing', async () => {
    const auth = newService();
    const kept = await auth.gatewayTokens.create('kept');
    const gone = await auth.gatewayTokens.create('gone');
    expect(await auth.gatewayTokens.revoke(gone.id)).toEqual({ revoked: gone.id });
    expect(await auth.gatewayTokens.verify(gone.token)).toBeUndefined();
    expect(await auth.gatewayTokens.verify(kept.token)).toEqual({ id: kept.id, name: 'kept' });
    const missing = await failure(auth.gatewayTokens.revoke(gone.id));
    expect(missing).toBeInstanceOf(TokenNotFoundError);
    expect((missing as Error).message).toBe(`no gateway token with id "${gone.id}"`);
    expect((await auth.gatewayTokens.list()).map((token) => token.name)).toEqual(['kept']);
  });

  it('never stand in for an API token, nor an API token for them, even with the prefix swapped', async () => {
    const auth = newService();
    const gateway = await auth.gatewayTokens.create('crawler');
    const api = await auth.createToken('scraper');
    expect(await auth.tokenPrincipal(gateway.token)).toBeUndefined();
    expect(await auth.tokenPrincipal(gateway.token.replace(/^kvm2g_/, 'kvm2p_'))).toBeUndefined();
    expect(await auth.gatewayTokens.verify(api.token)).toBeUndefined();
    expect(await auth.gatewayTokens.verify(api.token.replace(/^kvm2p_/, 'kvm2g_'))).toBeUndefined();
    // Each list holds its own kind only; revoking one kind's id in the other's list finds nothing.
    expect((await auth.listTokens()).map((token) => token.id)).toEqual([api.id]);
    expect((await auth.gatewayTokens.list()).map((token) => token.id)).toEqual([gateway.id]);
    expect(await failure(auth.revokeToken(gateway.id))).toBeInstanceOf(TokenNotFoundError);
    expect(await failure(auth.gatewayTokens.revoke(api.id))).toBeInstanceOf(TokenNotFoundError);
    expect(await auth.tokenPrincipal(api.token)).toEqual({ kind: 'token', tokenId: api.id });
    expect(await auth.gatewayTokens.verify(gateway.token)).toEqual({ id: gateway.id, name: 'crawler' });
  });

  it('are told apart by their prefix even when both tables hold the same id and secret hash', async () => {
    const auth = newService();
    const gateway = await auth.gatewayTokens.create('crawler');
    await db.run(`INSERT INTO api_tokens SELECT * FROM gateway_tokens WHERE id = ?`, [gateway.id]);
    expect(await auth.tokenPrincipal(gateway.token)).toBeUndefined();
    expect(await auth.tokenPrincipal(gateway.token.replace(/^kvm2g_/, 'kvm2p_'))).toEqual({ kind: 'token', tokenId: gateway.id });
    const api = await auth.createToken('scraper');
    await db.run(`INSERT INTO gateway_tokens SELECT * FROM api_tokens WHERE id = ?`, [api.id]);
    expect(await auth.gatewayTokens.verify(api.token)).toBeUndefined();
    expect(await auth.gatewayTokens.verify(api.token.replace(/^kvm2p_/, 'kvm2g_'))).toEqual({ id: api.id, name: 'scraper' });
  });
});
