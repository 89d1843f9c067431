// Gateway tokens at the HTTP API (GET|POST /api/gateway/tokens, DELETE /api/gateway/tokens/{id}):
// the admin creates one (shown whole once), lists them without secrets and revokes them; bad input
// is answered 400 naming the field and changes nothing; and a gateway token is no key to the API:
// every route that takes a session or an API token refuses it with 401.
import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, handlers as h, routeTable, startApi, type ApiHarness } from './api-harness';

let api: ApiHarness | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const create = (harness: ApiHarness, name: unknown) => harness.call(h.gatewayTokens.POST, '/api/gateway/tokens', 'POST', { session: true, body: { name } });

describe('gateway tokens API', () => {
  it('creates a token shown once, lists it without its secret, and revokes it for good', async () => {
    api = await startApi();
    const created = await create(api, 'crawler-eu');
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'crawler-eu', prefix: expect.stringMatching(/^kvm2g_[0-9a-f]{16}$/) });
    expect(created.json.token).toMatch(new RegExp(`^${created.json.prefix}_[A-Za-z0-9_-]{43}$`));
    expect(await api.auth.gatewayTokens.verify(created.json.token)).toEqual({ id: created.json.id, name: 'crawler-eu' });

    const listed = await api.call(h.gatewayTokens.GET, '/api/gateway/tokens', 'GET', { session: true });
    expect(listed.status).toBe(200);
    expect(listed.json.tokens).toEqual([
      { id: created.json.id, name: 'crawler-eu', prefix: created.json.prefix, createdAt: created.json.createdAt, lastUsedAt: expect.any(String) },
    ]);
    expect(listed.text).not.toContain(created.json.token.slice(created.json.prefix.length + 1));
    // API tokens and gateway tokens are separate lists.
    expect((await api.call(h.tokens.GET, '/api/tokens', 'GET', { session: true })).json.tokens).toEqual([]);

    const revoke = () =>
      api!.call(h.gatewayToken.DELETE, `/api/gateway/tokens/${created.json.id}`, 'DELETE', { session: true, params: { id: created.json.id } });
    const revoked = await revoke();
    expect(revoked.status).toBe(200);
    expect(revoked.json).toEqual({ revoked: created.json.id });
    expect(await api.auth.gatewayTokens.verify(created.json.token)).toBeUndefined();
    const twice = await revoke();
    expect(twice.status).toBe(404);
    expect(twice.json.error.code).toBe('ERR_TOKEN_NOT_FOUND');
    expect(errorOf(twice).message).toBe(`no gateway token with id "${created.json.id}"`);
  });

  it('answers bad input with 400 naming the field, and creates or revokes nothing', async () => {
    api = await startApi();
    const kept = await create(api, 'kept');
    const before = await api.snapshot();
    const bad: Array<{ body?: unknown; params?: Record<string, string>; field: string }> = [
      { body: {}, field: 'name' },
      { body: { name: '   ' }, field: 'name' },
      { body: { name: 'n'.repeat(65) }, field: 'name' },
      { body: { name: 'semi;colon' }, field: 'name' },
      { body: { name: 7 }, field: 'name' },
      { body: { name: 'ok', scope: 'admin' }, field: 'scope' },
      { params: { id: 'zz' }, field: 'id' },
      { params: { id: kept.json.prefix }, field: 'id' },
    ];
    for (const row of bad) {
      const answer = row.params
        ? await api.call(h.gatewayToken.DELETE, `/api/gateway/tokens/${row.params.id}`, 'DELETE', { session: true, params: row.params })
        : await api.call(h.gatewayTokens.POST, '/api/gateway/tokens', 'POST', { session: true, body: row.body });
      expect(answer.status, JSON.stringify(row)).toBe(400);
      expect(answer.json.error.code).toBe('ERR_INVALID_INPUT');
      expect(errorOf(answer).fields?.map((field) => field.path)).toContain(row.field);
    }
    expect(await api.snapshot()).toBe(before);
  });

  it('refuses a gateway token as the credentials of every API route, the readers (discovery, metrics, events) included', async () => {
    api = await startApi();
    const gateway = (await create(api, 'crawler')).json.token as string;
    const guarded = routeTable.filter((row) => row.access !== 'public');
    expect(guarded.some((row) => row.access === 'reader')).toBe(true);
    const before = await api.snapshot();
    for (const row of guarded) {
      const answer = await api.call(row.handler, row.path, row.method, { bearer: gateway, params: row.params });
      expect(answer.status, `${row.method} ${row.path}`).toBe(401);
      expect(answer.json.error.code).toBe('ERR_UNAUTHENTICATED');
    }
    expect(await api.snapshot()).toBe(before);
    // An API token still reads discovery, and still does not open the gateway.
    const apiToken = (await api.auth.createToken('reader')).token;
    expect((await api.call(h.discovery.GET, '/api/discovery/proxies', 'GET', { bearer: apiToken })).status).toBe(200);
    expect(await api.auth.gatewayTokens.verify(apiToken)).toBeUndefined();
  });
});
