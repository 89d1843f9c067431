// The credentials behind the API, below HTTP: scrypt password hashes, signed sessions that expire
// and end on logout, API tokens stored as hashes, and the login limiter's windows, all over a real
// store with a clock the test moves.
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidCredentialsError, PasswordAlreadySetError, TooManyAttemptsError } from '@/server/auth/errors';
import { hashPassword, verifyPassword } from '@/server/auth/password';
import { LoginRateLimiter } from '@/server/auth/rate-limit';
import { AuthService } from '@/server/auth/service';
import { migrate } from '@/server/store/migrations';

const cheapCost = { N: 1024, r: 8, p: 1 };

let db: BetterSqlite3.Database;
let nowMs = Date.parse('2026-05-01T10:00:00Z');
const now = () => nowMs;
const newService = (options: Partial<ConstructorParameters<typeof AuthService>[0]> = {}) => new AuthService({ db, cost: cheapCost, now, sessionTtlMs: 60_000, ...options });
const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (err: unknown) => err);

beforeEach(() => {
  db = new BetterSqlite3(':memory:');
  migrate(db);
});
afterEach(() => db.close());

describe('password hashes', () => {
  it('verify the password they were made from and nothing else, with a fresh salt each time', async () => {
    const first = await hashPassword('s3cret pass', cheapCost);
    const second = await hashPassword('s3cret pass', cheapCost);
    expect(first).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword('s3cret pass', first)).toBe(true);
    expect(await verifyPassword('s3cret pasS', first)).toBe(false);
    expect(await verifyPassword('s3cret pass', 'plain:s3cret pass')).toBe(false);
    expect(await verifyPassword('s3cret pass', first.slice(0, -4))).toBe(false);
  });
});

describe('sessions', () => {
  it('expire after their lifetime, end on logout, and survive a restart of the service (the key is stored)', async () => {
    const auth = newService();
    await auth.setup('first password');
    const session = await auth.login({ password: 'first password', client: 'c' });
    expect(auth.sessionValid(session.cookieValue)).toBe(true);
    expect(newService().sessionValid(session.cookieValue)).toBe(true);
    nowMs += 60_001;
    expect(auth.sessionValid(session.cookieValue)).toBe(false);
    const second = await auth.login({ password: 'first password', client: 'c' });
    auth.logout(second.cookieValue);
    expect(auth.sessionValid(second.cookieValue)).toBe(false);
  });

  it('refuse a cookie whose id or signature was altered, and store only a hash of the id', async () => {
    const auth = newService();
    await auth.setup('first password');
    const { cookieValue } = await auth.login({ password: 'first password', client: 'c' });
    const [id, signature] = cookieValue.split('.') as [string, string];
    const flip = (text: string) => (text.startsWith('A') ? `B${text.slice(1)}` : `A${text.slice(1)}`);
    for (const forged of [`${flip(id)}.${signature}`, `${id}.${flip(signature)}`, id, `${cookieValue}.x`, '']) expect(auth.sessionValid(forged)).toBe(false);
    expect(JSON.stringify(db.prepare(`SELECT * FROM sessions`).all())).not.toContain(id);
  });
});

describe('admin password', () => {
  it('is set once by setup, and ADMIN_PASSWORD replaces it at start, ending every session', async () => {
    const auth = newService();
    await auth.setup('first password');
    expect(await failure(auth.setup('second password'))).toBeInstanceOf(PasswordAlreadySetError);
    const session = await auth.login({ password: 'first password', client: 'c' });
    const restarted = newService({ adminPassword: 'from the environment' });
    await restarted.init();
    expect(restarted.sessionValid(session.cookieValue)).toBe(false);
    expect(await failure(restarted.login({ password: 'first password', client: 'c' }))).toBeInstanceOf(InvalidCredentialsError);
    const kept = await restarted.login({ password: 'from the environment', client: 'c' });
    // The same ADMIN_PASSWORD at the next start changes nothing.
    await newService({ adminPassword: 'from the environment' }).init();
    expect(restarted.sessionValid(kept.cookieValue)).toBe(true);
  });
});

describe('API tokens', () => {
  it('verify while they exist, are stored only as a hash, and record when they were last used', () => {
    const auth = newService();
    const created = auth.createToken('crawler');
    expect(created.token).toMatch(/^kvm2p_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(auth.tokenPrincipal(created.token)).toEqual({ kind: 'token', tokenId: created.id });
    expect(auth.listTokens()).toEqual([{ id: created.id, name: 'crawler', prefix: created.prefix, createdAt: created.createdAt, lastUsedAt: new Date(nowMs).toISOString() }]);
    expect(JSON.stringify(db.prepare(`SELECT * FROM api_tokens`).all())).not.toContain(created.token.slice(created.prefix.length + 1));
    expect(auth.tokenPrincipal(created.token.slice(0, -1) + (created.token.endsWith('A') ? 'B' : 'A'))).toBeUndefined();
    expect(auth.tokenPrincipal(`Bearer ${created.token}`)).toBeUndefined();
    auth.revokeToken(created.id);
    expect(auth.tokenPrincipal(created.token)).toBeUndefined();
  });
});

describe('login rate limit', () => {
  it('blocks a client after 5 failures until its window ends, and caps all clients together', async () => {
    const limiter = new LoginRateLimiter({ perClient: 5, global: 8, windowMs: 60_000 }, now);
    for (let i = 0; i < 5; i++) limiter.recordFailure('a');
    expect(limiter.retryAfterSeconds('a')).toBe(60);
    expect(limiter.retryAfterSeconds('b')).toBe(0);
    nowMs += 30_000;
    expect(limiter.retryAfterSeconds('a')).toBe(30);
    nowMs += 30_000;
    expect(limiter.retryAfterSeconds('a')).toBe(0);
    for (let i = 0; i < 8; i++) limiter.recordFailure(`client-${i}`);
    expect(limiter.retryAfterSeconds('fresh')).toBe(60);
  });

  it('is applied by login before the password is checked, and a success clears the count', async () => {
    const auth = newService({ limits: { perClient: 2, global: 100, windowMs: 60_000 } });
    await auth.setup('first password');
    await failure(auth.login({ password: 'wrong', client: 'c' }));
    await auth.login({ password: 'first password', client: 'c' });
    await failure(auth.login({ password: 'wrong', client: 'c' }));
    expect(await failure(auth.login({ password: 'first password', client: 'c' }))).not.toBeInstanceOf(TooManyAttemptsError);
    await failure(auth.login({ password: 'wrong', client: 'c' }));
    await failure(auth.login({ password: 'wrong', client: 'c' }));
    const blocked = await failure(auth.login({ password: 'first password', client: 'c' }));
    expect(blocked).toBeInstanceOf(TooManyAttemptsError);
    expect((blocked as TooManyAttemptsError).retryAfterSeconds).toBe(60);
  });
});
