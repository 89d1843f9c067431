// The credentials behind the API, below HTTP: scrypt password hashes, signed sessions that expire
// and end on logout, first-start setup behind the logged setup code, API tokens stored as hashes,
// and the login limiter's per-client backoff, all over a real store with a clock the test moves.
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidCredentialsError, InvalidSetupCodeError, PasswordAlreadySetError, TooManyAttemptsError } from '@/server/auth/errors';
import { hashPassword, verifyPassword } from '@/server/auth/password';
import { clientKey, LoginRateLimiter } from '@/server/auth/rate-limit';
import { AuthService } from '@/server/auth/service';
import type { SqlExecutor } from '@/server/store/sql';
import { createLogger } from '@/server/telemetry/logger';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const cheapCost = { N: 1024, r: 8, p: 1 };

const engines = storeEnginesForFile();
let db: SqlExecutor;
let nowMs = Date.parse('2026-05-01T10:00:00Z');
const now = () => nowMs;
const newService = (options: Partial<ConstructorParameters<typeof AuthService>[0]> = {}) =>
  new AuthService({ db, cost: cheapCost, now, sessionTtlMs: 60_000, ...options });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

/** A service after its start, with its first password set through setup as the admin would. */
async function serviceWithPassword(password: string, options: Partial<ConstructorParameters<typeof AuthService>[0]> = {}): Promise<AuthService> {
  const auth = newService(options);
  await auth.init();
  await auth.setup({ password, setupCode: (await auth.pendingSetupCode())!, client: 'setup' });
  return auth;
}

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

describe.each(storeEngines)('credentials in the %s store', (engine) => {
  beforeEach(async () => {
    db = (await engines.open(engine)).sql;
  });

  describe('sessions', () => {
    it('expire after their lifetime, end on logout, and survive a restart of the service (the key is stored)', async () => {
      const auth = await serviceWithPassword('first password');
      const session = await auth.login({ password: 'first password', client: 'c' });
      expect(await auth.sessionValid(session.cookieValue)).toBe(true);
      expect(await newService().sessionValid(session.cookieValue)).toBe(true);
      nowMs += 60_001;
      expect(await auth.sessionValid(session.cookieValue)).toBe(false);
      const second = await auth.login({ password: 'first password', client: 'c' });
      await auth.logout(second.cookieValue);
      expect(await auth.sessionValid(second.cookieValue)).toBe(false);
    });

    it('refuse a cookie whose id or signature was altered, and store only a hash of the id', async () => {
      const auth = await serviceWithPassword('first password');
      const { cookieValue } = await auth.login({ password: 'first password', client: 'c' });
      const [id, signature] = cookieValue.split('.') as [string, string];
      const flip = (text: string) => (text.startsWith('A') ? `B${text.slice(1)}` : `A${text.slice(1)}`);
      for (const forged of [`${flip(id)}.${signature}`, `${id}.${flip(signature)}`, id, `${cookieValue}.x`, ''])
        expect(await auth.sessionValid(forged)).toBe(false);
      expect(JSON.stringify(await db.all(`SELECT * FROM sessions`))).not.toContain(id);
    });
  });

  describe('admin password', () => {
    it('is set once by setup with the logged setup code, and ADMIN_PASSWORD replaces it at start, ending every session', async () => {
      const auth = await serviceWithPassword('first password');
      expect(await failure(auth.setup({ password: 'second password', setupCode: 'anything', client: 'c' }))).toBeInstanceOf(PasswordAlreadySetError);
      const session = await auth.login({ password: 'first password', client: 'c' });
      const restarted = newService({ adminPassword: 'from the environment' });
      await restarted.init();
      expect(await restarted.sessionValid(session.cookieValue)).toBe(false);
      expect(await failure(restarted.login({ password: 'first password', client: 'c' }))).toBeInstanceOf(InvalidCredentialsError);
      const kept = await restarted.login({ password: 'from the environment', client: 'c' });
      // The same ADMIN_PASSWORD at the next start changes nothing.
      await newService({ adminPassword: 'from the environment' }).init();
      expect(await restarted.sessionValid(kept.cookieValue)).toBe(true);
    });

    it('on first start needs the one-time setup code that init logs: none, a wrong one or a stale one set nothing', async () => {
      const lines: string[] = [];
      const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
      const auth = newService({ logger });
      await auth.init();
      const code = (await auth.pendingSetupCode())!;
      expect(code).toMatch(/^[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}$/);
      expect(lines.join('')).toContain(code);
      expect(await failure(auth.setup({ password: 'my password', setupCode: '', client: 'c' }))).toBeInstanceOf(InvalidSetupCodeError);
      expect(await failure(auth.setup({ password: 'my password', setupCode: 'AAAAA-BBBBB-CCCCC', client: 'c' }))).toBeInstanceOf(InvalidSetupCodeError);
      // A restart within the hour keeps the code (it is in the store); once it expires it no longer works.
      const restarted = newService({ logger });
      await restarted.init();
      expect(await restarted.pendingSetupCode()).toBe(code);
      nowMs += 3_600_000;
      expect(await failure(restarted.setup({ password: 'my password', setupCode: code, client: 'c' }))).toBeInstanceOf(InvalidSetupCodeError);
      expect(await restarted.pendingSetupCode()).not.toBe(code);
      expect(await db.all(`SELECT * FROM admin_password`)).toEqual([]);
      // Spaces, dashes and case do not matter; afterwards the code is spent.
      await restarted.setup({
        password: 'my password',
        setupCode: ` ${(await restarted.pendingSetupCode())!.toLowerCase().replaceAll('-', ' ')} `,
        client: 'c',
      });
      expect(await restarted.pendingSetupCode()).toBeUndefined();
      await restarted.login({ password: 'my password', client: 'c' });
    });

    it('lets exactly one of two racing setups with the right code set the password', async () => {
      const auth = newService();
      await auth.init();
      const setupCode = (await auth.pendingSetupCode())!;
      const outcomes = await Promise.all(['first racer', 'second racer'].map((password) => failure(auth.setup({ password, setupCode, client: password }))));
      expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
      expect(outcomes.find((outcome) => outcome !== undefined)).toBeInstanceOf(PasswordAlreadySetError);
      const winner = outcomes[0] === undefined ? 'first racer' : 'second racer';
      await auth.login({ password: winner, client: 'c' });
    });

    it('with ADMIN_PASSWORD set, init makes no setup code', async () => {
      const auth = newService({ adminPassword: 'from the environment' });
      await auth.init();
      expect(await auth.pendingSetupCode()).toBeUndefined();
    });
  });

  describe('API tokens', () => {
    it('verify while they exist, are stored only as a hash, and record when they were last used', async () => {
      const auth = newService();
      const created = await auth.createToken('crawler');
      expect(created.token).toMatch(/^kvm2p_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(await auth.tokenPrincipal(created.token)).toEqual({ kind: 'token', tokenId: created.id });
      expect(await auth.listTokens()).toEqual([
        { id: created.id, name: 'crawler', prefix: created.prefix, createdAt: created.createdAt, lastUsedAt: new Date(nowMs).toISOString() },
      ]);
      expect(JSON.stringify(await db.all(`SELECT * FROM api_tokens`))).not.toContain(created.token.slice(created.prefix.length + 1));
      expect(await auth.tokenPrincipal(created.token.slice(0, -1) + (created.token.endsWith('A') ? 'B' : 'A'))).toBeUndefined();
      expect(await auth.tokenPrincipal(`Bearer ${created.token}`)).toBeUndefined();
      await auth.revokeToken(created.id);
      expect(await auth.tokenPrincipal(created.token)).toBeUndefined();
    });
  });
});

describe('login rate limit', () => {
  const limits = { freeAttempts: 5, networkFreeAttempts: 50, backoffBaseMs: 1_000, backoffCapMs: 8_000, forgetAfterMs: 3_600_000 };
  const granted = (limiter: LoginRateLimiter, client: string) => {
    const reservation = limiter.reserve(client);
    if ('retryAfterSeconds' in reservation) throw new Error(`refused for ${reservation.retryAfterSeconds} s`);
    return reservation.attempt;
  };
  const retryAfter = (limiter: LoginRateLimiter, client: string) => {
    const reservation = limiter.reserve(client);
    if ('attempt' in reservation) {
      reservation.attempt.succeeded();
      return 0;
    }
    return reservation.retryAfterSeconds;
  };

  it('reserves attempts before they are checked: 50 at once from one client get the 5 free ones', () => {
    const limiter = new LoginRateLimiter(limits, now);
    const outcomes = Array.from({ length: 50 }, () => limiter.reserve('a'));
    expect(outcomes.filter((outcome) => 'attempt' in outcome)).toHaveLength(5);
    expect(retryAfter(limiter, 'b')).toBe(0);
  });

  it('backs off exponentially after the free attempts, one attempt at a time, up to the cap', () => {
    const limiter = new LoginRateLimiter(limits, now);
    for (let i = 0; i < 5; i++) granted(limiter, 'a').failed();
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const wait = retryAfter(limiter, 'a');
      waits.push(wait);
      nowMs += wait * 1000;
      const attempt = granted(limiter, 'a');
      expect(retryAfter(limiter, 'a'), 'a second attempt while one is in flight').toBeGreaterThan(0);
      attempt.failed();
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8]);
    expect(retryAfter(limiter, 'someone else')).toBe(0);
  });

  it('clears a client on success, forgets it after a quiet hour, and counts IPv6 clients per address', () => {
    const limiter = new LoginRateLimiter(limits, now);
    for (let i = 0; i < 4; i++) granted(limiter, 'a').failed();
    granted(limiter, 'a').succeeded();
    for (let i = 0; i < 5; i++) granted(limiter, 'a').failed();
    expect(retryAfter(limiter, 'a')).toBe(1);
    nowMs += 3_600_000;
    for (let i = 0; i < 5; i++) granted(limiter, 'a').failed();
    expect(clientKey('2001:db8:1:2::7')).toBe(clientKey('2001:0db8:0001:0002:0:0:0:7'));
    expect(clientKey('2001:db8:1:2::8')).not.toBe(clientKey('2001:db8:1:2::7'));
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    for (let i = 0; i < 5; i++) granted(limiter, '2001:db8::1').failed();
    expect(retryAfter(limiter, '2001:db8::1')).toBeGreaterThan(0);
    expect(retryAfter(limiter, '2001:db8::2'), 'a neighbour in the same /64').toBe(0);
  });

  it('lets at most the free attempts of 50 parallel wrong passwords reach the hash; the right password from another client still logs in', async () => {
    const auth = await serviceWithPassword('first password', { limits });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => failure(auth.login({ password: `guess ${i}`, client: '198.51.100.7' }))));
    expect(results.filter((err) => err instanceof InvalidCredentialsError)).toHaveLength(5);
    expect(results.filter((err) => err instanceof TooManyAttemptsError)).toHaveLength(45);
    expect(await failure(auth.login({ password: 'first password', client: '198.51.100.7' }))).toBeInstanceOf(TooManyAttemptsError);
    await auth.login({ password: 'first password', client: '198.51.100.8' });
  });
});
