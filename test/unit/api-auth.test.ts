// Authentication and CSRF at the HTTP API: every route but the auth routes and healthz wants a
// session (discovery and metrics also take an API token); mutating requests from a foreign Origin
// are refused; login sets a hardened cookie, is rate-limited per client, and first-start setup
// works once. Refused requests change nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { adminPassword, errorOf, handlers as h, origin, routeTable, startApi, type ApiHarness } from './api-harness';

let api: ApiHarness | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const bodyFor: Record<string, unknown> = {
  'POST /api/auth/login': { password: adminPassword },
  'POST /api/auth/setup': { password: 'another password', setupCode: 'AAAAA-BBBBB-CCCCC' },
  'POST /api/auth/password': { currentPassword: adminPassword, newPassword: 'another password' },
  'POST /api/proxies': { name: 'beta', mode: 'Static', address: '192.0.2.20' },
  'PUT /api/proxies/alpha': { mode: 'Static', address: '192.0.2.30' },
  'POST /api/tokens': { name: 'sneaky' },
  'POST /api/gateway/tokens': { name: 'sneaky' },
};

const setCookieOf = (headers: Headers) => headers.get('set-cookie') ?? '';

describe('authentication', () => {
  it('answers 401 on every route without a session, with a forged cookie, and with a token where none is accepted', async () => {
    api = await startApi();
    const token = (await api.auth.createToken('reader')).token;
    const guarded = routeTable.filter((row) => row.access !== 'public');
    expect(guarded.length).toBeGreaterThanOrEqual(18);
    const before = await api.snapshot();
    for (const row of guarded) {
      const body = bodyFor[`${row.method} ${row.path}`];
      for (const credentials of [{}, { session: 'forged.cookie' }, { session: `${api.session?.split('.')[0]}.AAAA` }]) {
        const answer = await api.call(row.handler, row.path, row.method, { ...credentials, params: row.params, body });
        expect(answer.status, `${row.method} ${row.path} ${JSON.stringify(credentials)}`).toBe(401);
        expect(answer.json.error.code).toBe('ERR_UNAUTHENTICATED');
        expect(answer.json.error.message).toMatch(/log in|token/);
      }
      if (row.access === 'admin') {
        const withToken = await api.call(row.handler, row.path, row.method, { bearer: token, params: row.params, body });
        expect(withToken.status, `${row.method} ${row.path} with a token`).toBe(401);
      }
    }
    expect(await api.snapshot()).toBe(before);
  });

  it('accepts an API token on discovery, metrics and the event stream only, and refuses a revoked or malformed one', async () => {
    api = await startApi();
    const created = await api.auth.createToken('crawler');
    for (const row of routeTable.filter((entry) => entry.access === 'reader')) {
      expect((await api.call(row.handler, row.path, row.method, { bearer: created.token })).status).toBe(200);
      expect((await api.call(row.handler, row.path, row.method, { bearer: `${created.token}x` })).status).toBe(401);
      expect((await api.call(row.handler, row.path, row.method, { bearer: created.token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) })).status).toBe(401);
    }
    await api.auth.revokeToken(created.id);
    expect((await api.call(h.discovery.GET, '/api/discovery/proxies', 'GET', { bearer: created.token })).status).toBe(401);
    const row = await api.runtime.store.sql.all(`SELECT * FROM api_tokens`);
    expect(JSON.stringify(row)).not.toContain(created.token.slice(created.prefix.length + 1));
  });

  it('refuses every mutating request from a foreign Origin with 403, session or not, and changes nothing', async () => {
    api = await startApi();
    await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: true, body: { name: 'alpha', mode: 'Static', address: '192.0.2.10' } });
    await expect
      .poll(async () => (await api!.runtime.store.proxies.get('alpha'))?.status.phase === 'Running', { message: 'alpha Running', timeout: 5_000 })
      .toBe(true);
    const mutating = routeTable.filter((row) => row.method !== 'GET');
    expect(mutating.length).toBeGreaterThanOrEqual(9);
    const before = await api.snapshot();
    const foreign: Array<{ origin: string | null; headers?: Record<string, string> }> = [
      { origin: 'https://evil.example' },
      { origin: 'http://127.0.0.1:3001' },
      { origin: 'https://127.0.0.1:3000' },
      // DNS rebinding: the page's own name resolved to this server; Host says the same name.
      { origin: 'http://evil.example:3000', headers: { host: 'evil.example:3000' } },
      { origin: 'http://evil.example:3000', headers: { host: 'evil.example:3000', 'x-forwarded-host': 'evil.example:3000' } },
      { origin: 'null' },
      { origin: null, headers: { 'sec-fetch-site': 'cross-site' } },
      { origin: null, headers: { 'sec-fetch-site': 'same-site' } },
    ];
    for (const row of mutating) {
      for (const variant of foreign) {
        const answer = await api.call(row.handler, row.path, row.method, {
          session: true,
          params: row.params,
          body: bodyFor[`${row.method} ${row.path}`],
          ...variant,
        });
        expect(answer.status, `${row.method} ${row.path} from ${JSON.stringify(variant)}`).toBe(403);
        expect(answer.json.error.code).toBe('ERR_FOREIGN_ORIGIN');
        expect(answer.json.error.message).toContain('cross-site');
      }
    }
    expect(await api.snapshot()).toBe(before);
    // The same request from our own page, or from a script that sends no Origin, goes through.
    expect((await api.call(h.tokens.POST, '/api/tokens', 'POST', { session: true, body: { name: 'ok' } })).status).toBe(201);
    expect((await api.call(h.tokens.POST, '/api/tokens', 'POST', { session: true, body: { name: 'script' }, origin: null })).status).toBe(201);
    expect(
      (
        await api.call(h.tokens.POST, '/api/tokens', 'POST', {
          session: true,
          body: { name: 'nav' },
          origin: null,
          headers: { 'sec-fetch-site': 'same-origin' },
        })
      ).status,
    ).toBe(201);
  });

  it('logs in with an HttpOnly, SameSite=Strict cookie with an expiry, Secure over HTTPS, and logs out for real', async () => {
    api = await startApi();
    const wrong = await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: 'not it' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('ERR_INVALID_CREDENTIALS');
    expect(setCookieOf(wrong.headers)).toBe('');

    const plain = await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: adminPassword } });
    expect(plain.status).toBe(200);
    const cookie = setCookieOf(plain.headers);
    expect(cookie).toMatch(/^kvm2_session=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; /);
    for (const attribute of ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=43200', 'Expires=']) expect(cookie).toContain(attribute);
    expect(cookie).not.toContain('Secure');
    expect(plain.text).not.toContain(cookie.split(';')[0]!.split('=')[1]!);

    // A client cannot claim HTTPS: only a trusted proxy's X-Forwarded-Proto counts (see the proxy test).
    const claimed = await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: adminPassword }, headers: { 'x-forwarded-proto': 'https' } });
    expect(setCookieOf(claimed.headers)).not.toContain('Secure');

    const session = /kvm2_session=([^;]+)/.exec(cookie)![1]!;
    expect((await api.call(h.status.GET, '/api/auth/status', 'GET', { session })).json).toEqual({
      passwordConfigured: true,
      authenticated: true,
      passwordSource: 'setup',
    });
    const out = await api.call(h.logout.POST, '/api/auth/logout', 'POST', { session });
    expect(out.status).toBe(200);
    expect(setCookieOf(out.headers)).toContain('Max-Age=0');
    expect((await api.call(h.providers.GET, '/api/providers', 'GET', { session })).status).toBe(401);
    expect((await api.call(h.status.GET, '/api/auth/status', 'GET', { session })).json.authenticated).toBe(false);
    // Other sessions live on.
    expect((await api.call(h.providers.GET, '/api/providers', 'GET', { session: true })).status).toBe(200);
  });

  it('rate-limits failed logins per connection with 429 and Retry-After; X-Forwarded-For from a client changes nothing', async () => {
    api = await startApi();
    const from = (peer: string, password: string, forwardedFor?: string) =>
      api!.call(h.login.POST, '/api/auth/login', 'POST', { body: { password }, peer, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
    for (let attempt = 0; attempt < 5; attempt++) expect((await from('198.51.100.7', `guess-${attempt}`, `203.0.113.${attempt}`)).status).toBe(401);
    const blocked = await from('198.51.100.7', adminPassword, '203.0.113.99');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(blocked.json.error.code).toBe('ERR_TOO_MANY_ATTEMPTS');
    expect(errorOf(blocked).message).toContain('too many');
    expect((await from('198.51.100.8', adminPassword)).status).toBe(200);
  });

  it('lets 5 of 50 parallel wrong passwords reach the hash, and never locks out the right password from another client', async () => {
    api = await startApi();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => api!.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: `guess-${i}` }, peer: '198.51.100.7' })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(45);
    expect((await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: adminPassword }, peer: '198.51.100.8' })).status).toBe(200);
  });

  it('behind a trusted proxy (TRUST_PROXY) keys on the client the proxy saw and honours its X-Forwarded-Proto', async () => {
    api = await startApi();
    process.env.TRUST_PROXY = '10.0.0.0/24';
    try {
      const via = (client: string, password: string, proto = 'http') =>
        api!.call(h.login.POST, '/api/auth/login', 'POST', {
          body: { password },
          peer: '10.0.0.2',
          headers: { 'x-forwarded-for': `203.0.113.50, ${client}`, 'x-forwarded-proto': proto },
        });
      for (let attempt = 0; attempt < 5; attempt++) expect((await via('198.51.100.7', `guess-${attempt}`)).status).toBe(401);
      expect((await via('198.51.100.7', adminPassword)).status).toBe(429);
      const other = await via('198.51.100.8', adminPassword, 'https');
      expect(other.status).toBe(200);
      expect(setCookieOf(other.headers)).toContain('; Secure');
      // The same headers from a peer that is not a proxy: its own address counts, no Secure.
      const direct = await api.call(h.login.POST, '/api/auth/login', 'POST', {
        body: { password: adminPassword },
        peer: '10.0.1.2',
        headers: { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' },
      });
      expect(direct.status).toBe(200);
      expect(setCookieOf(direct.headers)).not.toContain('Secure');
    } finally {
      delete process.env.TRUST_PROXY;
    }
  });

  it('accepts only APP_ORIGIN when it is set, whatever the connection', async () => {
    api = await startApi();
    process.env.APP_ORIGIN = 'https://dash.example.net, http://192.0.2.10:3000';
    try {
      const create = (from: string) => api!.call(h.tokens.POST, '/api/tokens', 'POST', { session: true, body: { name: 'x' }, origin: from });
      expect((await create(origin)).status).toBe(403);
      expect((await create('https://dash.example.net')).status).toBe(201);
      expect((await create('http://192.0.2.10:3000')).status).toBe(201);
      expect((await create('http://dash.example.net')).status).toBe(403);
    } finally {
      delete process.env.APP_ORIGIN;
    }
  });

  it('changes the password: the current one is checked, every other session ends, the caller gets a new one', async () => {
    api = await startApi();
    const other = await api.logIn();
    const wrong = await api.call(h.password.POST, '/api/auth/password', 'POST', {
      session: true,
      body: { currentPassword: 'nope', newPassword: 'brand new password' },
    });
    expect(wrong.status).toBe(401);
    const changed = await api.call(h.password.POST, '/api/auth/password', 'POST', {
      session: true,
      body: { currentPassword: adminPassword, newPassword: 'brand new password' },
    });
    expect(changed.status).toBe(200);
    const fresh = /kvm2_session=([^;]+)/.exec(setCookieOf(changed.headers))![1]!;
    expect((await api.call(h.providers.GET, '/api/providers', 'GET', { session: other })).status).toBe(401);
    expect((await api.call(h.providers.GET, '/api/providers', 'GET', { session: fresh })).status).toBe(200);
    expect((await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: adminPassword } })).status).toBe(401);
    await api.logIn('brand new password');
    const stored = (await api.runtime.store.sql.get<{ hash: string; source: string }>(`SELECT hash, source FROM admin_password`))!;
    expect(stored.hash).toMatch(/^scrypt\$/);
    expect(stored.hash).not.toContain('brand new password');
    expect(stored.source).toBe('change');
  });

  it('revokes every API token along with the sessions when the password change asks for it', async () => {
    api = await startApi();
    const kept = await api.auth.createToken('kept');
    const change = (body: Record<string, unknown>) => api!.call(h.password.POST, '/api/auth/password', 'POST', { session: true, body });
    const plain = await change({ currentPassword: adminPassword, newPassword: 'second password' });
    expect(plain.json).toMatchObject({ authenticated: true, revokedTokens: 0 });
    expect(await api.auth.tokenPrincipal(kept.token)).toBeDefined();
    api.session = /kvm2_session=([^;]+)/.exec(setCookieOf(plain.headers))![1]!;
    expect((await change({ currentPassword: 'second password', newPassword: 'third password', revokeTokens: 'yes' })).status).toBe(400);
    const revoking = await change({ currentPassword: 'second password', newPassword: 'third password', revokeTokens: true });
    expect(revoking.json).toMatchObject({ authenticated: true, revokedTokens: 1 });
    expect((await api.call(h.discovery.GET, '/api/discovery/proxies', 'GET', { bearer: kept.token })).status).toBe(401);
    expect(await api.auth.listTokens()).toEqual([]);
  });

  it('on first start offers setup once, only with the logged setup code, and tells strangers no more than that', async () => {
    api = await startApi({ passwordConfigured: false });
    const status = await api.call(h.status.GET, '/api/auth/status', 'GET');
    expect(status.json).toEqual({ passwordConfigured: false, authenticated: false });
    expect((await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: 'anything' } })).status).toBe(409);
    const setupCode = (await api.auth.pendingSetupCode())!;
    const short = await api.call(h.setup.POST, '/api/auth/setup', 'POST', { body: { password: 'short', setupCode } });
    expect(short.status).toBe(400);
    expect(errorOf(short).fields).toEqual([{ path: 'password', message: 'must be at least 8 characters' }]);
    const withoutCode = await api.call(h.setup.POST, '/api/auth/setup', 'POST', { body: { password: 'first password' } });
    expect(withoutCode.status).toBe(400);
    expect(errorOf(withoutCode).fields).toEqual([{ path: 'setupCode', message: expect.stringContaining('required') }]);
    const wrongCode = await api.call(h.setup.POST, '/api/auth/setup', 'POST', { body: { password: 'first password', setupCode: 'AAAAA-BBBBB-CCCCC' } });
    expect(wrongCode.status).toBe(403);
    expect(wrongCode.json.error.code).toBe('ERR_INVALID_SETUP_CODE');
    expect(errorOf(wrongCode).message).toContain('log at start');
    expect(await api.runtime.store.sql.all(`SELECT * FROM admin_password`)).toEqual([]);
    expect((await api.call(h.setup.POST, '/api/auth/setup', 'POST', { body: { password: 'first password', setupCode } })).status).toBe(201);
    expect((await api.call(h.setup.POST, '/api/auth/setup', 'POST', { body: { password: 'second password', setupCode } })).status).toBe(409);
    await api.logIn('first password');
    expect((await api.call(h.status.GET, '/api/auth/status', 'GET')).json).toEqual({ passwordConfigured: true, authenticated: false });
  });

  it('takes the password from ADMIN_PASSWORD, and refuses to change it through the API', async () => {
    api = await startApi({ environmentPassword: 'from the environment' });
    expect(api.session).toBeDefined();
    expect((await api.call(h.setup.POST, '/api/auth/setup', 'POST', { body: { password: 'first password', setupCode: 'AAAAA-BBBBB-CCCCC' } })).status).toBe(
      409,
    );
    const change = await api.call(h.password.POST, '/api/auth/password', 'POST', {
      session: true,
      body: { currentPassword: 'from the environment', newPassword: 'something else' },
    });
    expect(change.status).toBe(409);
    expect(change.json.error.message).toContain('ADMIN_PASSWORD');
    expect((await api.call(h.status.GET, '/api/auth/status', 'GET', { session: true })).json).toMatchObject({ passwordSource: 'environment' });
  });
});
