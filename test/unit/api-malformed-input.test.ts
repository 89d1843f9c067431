// Bad input at every door of the API: wrong types, missing and extra fields, oversized cloud-init,
// bad names, bad params and query strings. Each is answered 400 naming the field (its dotted path),
// and nothing changes: the store, the fake provider and the hypervisor are as they were.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { maxCloudInitBytes } from '@/lib/proxy-spec';
import type { RouteHandler } from '@/server/http/route';
import { handlers as h, startApi, type ApiHarness } from './api-harness';

let api: ApiHarness;
let token: string;
const before: { snapshot: string } = { snapshot: '' };

const alphaSpec = {
  mode: 'Managed',
  provider: 'fake-1',
  placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' },
  cloudInit: '#cloud-config\n',
  labels: { pool: 'crawlers' },
};

beforeAll(async () => {
  api = await startApi();
  token = (await api.auth.createToken('crawler')).token;
  await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: true, body: { name: 'alpha', ...alphaSpec } });
  await vi.waitFor(async () => expect((await api.runtime.services.proxies.get('alpha')).status.phase, 'alpha Ready').toBe('Ready'), { timeout: 5_000 });
  // The token's first use records when it was used (written at most once a minute): get that done.
  await api.call(h.discovery.GET, '/api/discovery/proxies', 'GET', { bearer: token });
  before.snapshot = await api.snapshot();
});
afterAll(async () => {
  await api?.close();
});

interface Case {
  what: string;
  handler: RouteHandler;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  params?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  /** the field path the answer must name */
  field: string;
  bearer?: boolean;
}

const managed = (changes: Record<string, unknown>) => ({ name: 'beta', ...alphaSpec, ...changes });
const placement = (changes: Record<string, unknown>) => managed({ placement: { ...alphaSpec.placement, ...changes } });
const create = (what: string, body: unknown, field: string): Case => ({ what, handler: h.proxies.POST, method: 'POST', path: '/api/proxies', body, field });
const update = (what: string, body: unknown, field: string): Case => ({
  what,
  handler: h.proxy.PUT,
  method: 'PUT',
  path: '/api/proxies/alpha',
  params: { name: 'alpha' },
  body,
  field,
});
const query = (what: string, handler: RouteHandler, path: string, field: string, params?: Record<string, string>): Case => ({
  what,
  handler,
  method: 'GET',
  path,
  params,
  field,
});
const tooManyLabels = Object.fromEntries(Array.from({ length: 33 }, (_, index) => [`k${index}`, 'v']));

const cases: Case[] = [
  create('an empty object', {}, 'mode'),
  create('an unknown mode', managed({ mode: 'Dynamic' }), 'mode'),
  create('no name', { ...alphaSpec }, 'name'),
  create('an upper-case name', managed({ name: 'Beta' }), 'name'),
  create('a name with an underscore', managed({ name: 'be_ta' }), 'name'),
  create('a name starting with a dash', managed({ name: '-beta' }), 'name'),
  create('a name ending with a dash', managed({ name: 'beta-' }), 'name'),
  create('a 64-character name', managed({ name: 'b'.repeat(64) }), 'name'),
  create('a numeric name', managed({ name: 42 }), 'name'),
  create('an empty name', managed({ name: '' }), 'name'),
  create('no provider', managed({ provider: undefined }), 'provider'),
  create('a numeric provider', managed({ provider: 7 }), 'provider'),
  create('an unconfigured provider', managed({ provider: 'nope' }), 'provider'),
  create('no placement', managed({ placement: undefined }), 'placement'),
  create('a string placement', managed({ placement: 'host-a' }), 'placement'),
  create('no machine type', managed({ placement: { zone: 'host-a', image: 'debian-13' } }), 'placement.machineType'),
  create('an empty image', placement({ image: '' }), 'placement.image'),
  create('a blank machine type', placement({ machineType: '   ' }), 'placement.machineType'),
  create('a numeric zone', placement({ zone: 5 }), 'placement.zone'),
  create('an extra placement field', placement({ flavor: 'big' }), 'placement.flavor'),
  create('port 0', managed({ port: 0 }), 'port'),
  create('port 65536', managed({ port: 65536 }), 'port'),
  create('a string port', managed({ port: '3128' }), 'port'),
  create('a fractional port', managed({ port: 3128.5 }), 'port'),
  create('labels as a list', managed({ labels: ['pool=crawlers'] }), 'labels'),
  create('a numeric label value', managed({ labels: { pool: 1 } }), 'labels.pool'),
  create('a label key with a space', managed({ labels: { 'bad key': 'x' } }), 'labels.bad key'),
  create('a 64-character label value', managed({ labels: { pool: 'v'.repeat(64) } }), 'labels.pool'),
  create('33 labels', managed({ labels: tooManyLabels }), 'labels'),
  { ...create('a __proto__ label', undefined, 'labels'), rawBody: JSON.stringify(managed({})).replace('"labels":{', '"labels":{"__proto__":"x",') },
  create('a numeric cloudInit', managed({ cloudInit: 12 }), 'cloudInit'),
  create('an oversized cloudInit', managed({ cloudInit: 'x'.repeat(maxCloudInitBytes + 1) }), 'cloudInit'),
  create('an oversized multi-byte cloudInit', managed({ cloudInit: 'é'.repeat(maxCloudInitBytes / 2 + 1) }), 'cloudInit'),
  create('an unknown field', managed({ color: 'blue' }), 'color'),
  create('a status in the spec', managed({ status: { phase: 'Ready' } }), 'status'),
  create('a Static proxy without address', { name: 'beta', mode: 'Static' }, 'address'),
  create('a Static proxy with a bad address', { name: 'beta', mode: 'Static', address: 'not a host!' }, 'address'),
  create('a Static proxy with cloudInit', { name: 'beta', mode: 'Static', address: '192.0.2.1', cloudInit: 'x' }, 'cloudInit'),
  create('a Static proxy with a provider', { name: 'beta', mode: 'Static', address: '192.0.2.1', provider: 'fake-1' }, 'provider'),
  { ...create('a body that is not JSON', undefined, ''), rawBody: '{"name": "beta",' },
  { ...create('an empty body', undefined, ''), rawBody: '' },
  create('a JSON list', [managed({})], ''),
  create('JSON null', null, ''),
  create('a JSON string', 'beta', ''),
  update('a mode change', { mode: 'Static', address: '192.0.2.1' }, 'mode'),
  update('a provider change', { ...alphaSpec, provider: 'kvm2-home' }, 'provider'),
  update('a negative port', { ...alphaSpec, port: -1 }, 'port'),
  update('a name in the update', { ...alphaSpec, name: 'alpha' }, 'name'),
  update('a null placement', { ...alphaSpec, placement: null }, 'placement'),
  update('an oversized cloudInit', { ...alphaSpec, cloudInit: 'y'.repeat(maxCloudInitBytes + 1) }, 'cloudInit'),
  query('a bad Proxy name', h.proxy.GET, '/api/proxies/BAD', 'name', { name: 'BAD' }),
  { ...query('a bad Proxy name to delete', h.proxy.DELETE, '/api/proxies/a..b', 'name', { name: 'a..b' }), method: 'DELETE' },
  query('events limit 0', h.proxyEvents.GET, '/api/proxies/alpha/events?limit=0', 'limit', { name: 'alpha' }),
  query('events limit not a number', h.proxyEvents.GET, '/api/proxies/alpha/events?limit=abc', 'limit', { name: 'alpha' }),
  query('events limit given twice', h.proxyEvents.GET, '/api/proxies/alpha/events?limit=5&limit=6', 'limit', { name: 'alpha' }),
  query('an unknown events parameter', h.proxyEvents.GET, '/api/proxies/alpha/events?foo=1', 'foo', { name: 'alpha' }),
  query('an unknown phase', h.proxies.GET, '/api/proxies?phase=Sleeping', 'phase'),
  query('an unknown mode filter', h.proxies.GET, '/api/proxies?mode=Dynamic', 'mode'),
  query('a label selector without a value', h.proxies.GET, '/api/proxies?labels=pool', 'labels'),
  query('a label selector with a bad key', h.proxies.GET, '/api/proxies?labels=bad%20key%3D1', 'labels'),
  query('a __proto__ label selector', h.proxies.GET, '/api/proxies?labels=__proto__%3Dx', 'labels'),
  query('a __proto__ label selector among others', h.proxies.GET, '/api/proxies?label=pool%3Dcrawlers&label=__proto__%3Dx', 'label'),
  query('an unknown list parameter', h.proxies.GET, '/api/proxies?sort=name', 'sort'),
  query('a since that is not a time', h.providerHealth.GET, '/api/providers/fake-1/health?since=yesterday', 'since', { provider: 'fake-1' }),
  query('a stats window that is not offered', h.proxyStats.GET, '/api/proxies/alpha/stats?window=2h', 'window', { name: 'alpha' }),
  query('a host stats window given twice', h.hostStats.GET, '/api/providers/kvm2-home/hosts/hv-1/stats?window=1h&window=7d', 'window', {
    provider: 'kvm2-home',
    host: 'hv-1',
  }),
  query('a provider with a slash', h.providerHealth.GET, '/api/providers/a%2Fb/health', 'provider', { provider: 'a/b' }),
  query('an empty host', h.host.GET, '/api/providers/kvm2-home/hosts/', 'host', { provider: 'kvm2-home', host: '' }),
  {
    ...query('a volume with a path', h.hostImage.DELETE, '/api/providers/kvm2-home/hosts/hv-1/images/..%2Fetc', 'volume', {
      provider: 'kvm2-home',
      host: 'hv-1',
      volume: '../etc',
    }),
    method: 'DELETE',
  },
  { ...query('a discovery selector without a value', h.discovery.GET, '/api/discovery/proxies?labels=pool', 'labels'), bearer: true },
  { ...query('a __proto__ discovery selector', h.discovery.GET, '/api/discovery/proxies?labels=__proto__%3Dx', 'labels'), bearer: true },
  { ...query('an unknown discovery parameter', h.discovery.GET, '/api/discovery/proxies?healthy=true', 'healthy'), bearer: true },
  { what: 'a token without a name', handler: h.tokens.POST, method: 'POST', path: '/api/tokens', body: {}, field: 'name' },
  { what: 'a token with an empty name', handler: h.tokens.POST, method: 'POST', path: '/api/tokens', body: { name: '  ' }, field: 'name' },
  { what: 'a token with a long name', handler: h.tokens.POST, method: 'POST', path: '/api/tokens', body: { name: 'n'.repeat(65) }, field: 'name' },
  { what: 'a token with an extra field', handler: h.tokens.POST, method: 'POST', path: '/api/tokens', body: { name: 'ok', scope: 'all' }, field: 'scope' },
  { what: 'a bad token id', handler: h.token.DELETE, method: 'DELETE', path: '/api/tokens/zz', params: { id: 'zz' }, field: 'id' },
  { what: 'a login without password', handler: h.login.POST, method: 'POST', path: '/api/auth/login', body: {}, field: 'password' },
  { what: 'a numeric password', handler: h.login.POST, method: 'POST', path: '/api/auth/login', body: { password: 5 }, field: 'password' },
  { what: 'a login with a user', handler: h.login.POST, method: 'POST', path: '/api/auth/login', body: { password: 'x', user: 'admin' }, field: 'user' },
  { what: 'a short setup password', handler: h.setup.POST, method: 'POST', path: '/api/auth/setup', body: { password: 'short' }, field: 'password' },
  {
    what: 'a setup without the setup code',
    handler: h.setup.POST,
    method: 'POST',
    path: '/api/auth/setup',
    body: { password: 'long enough' },
    field: 'setupCode',
  },
  {
    what: 'a change with revokeTokens not a boolean',
    handler: h.password.POST,
    method: 'POST',
    path: '/api/auth/password',
    body: { currentPassword: 'x', newPassword: 'long enough', revokeTokens: 'yes' },
    field: 'revokeTokens',
  },
  {
    what: 'a host named auto (placement.zone "auto" means "choose for me", so it could never be pinned)',
    handler: h.hosts.POST,
    method: 'POST',
    path: '/api/providers/kvm2-home/hosts',
    params: { provider: 'kvm2-home' },
    body: { name: 'auto', address: '10.0.0.2:22', user: 'virt', bridge: 'br0' },
    field: 'name',
  },
  {
    what: 'a change without the new password',
    handler: h.password.POST,
    method: 'POST',
    path: '/api/auth/password',
    body: { currentPassword: 'x' },
    field: 'newPassword',
  },
  {
    what: 'a change with an empty current password',
    handler: h.password.POST,
    method: 'POST',
    path: '/api/auth/password',
    body: { currentPassword: '', newPassword: 'long enough' },
    field: 'currentPassword',
  },
];

describe('malformed input', () => {
  it('has at least 50 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(50);
  });

  it.each(cases)('answers $what with 400 naming `$field`, changing nothing', async (row) => {
    const answer = await api.call(row.handler, row.path, row.method, {
      session: !row.bearer,
      ...(row.bearer ? { bearer: token } : {}),
      params: row.params,
      ...(row.rawBody !== undefined ? { rawBody: row.rawBody, headers: { 'content-type': 'application/json' } } : { body: row.body }),
    });
    expect(answer.status, answer.text.slice(0, 300)).toBe(400);
    expect(['ERR_INVALID_INPUT', 'ERR_PROXY_INVALID']).toContain(answer.json.error.code);
    expect(typeof answer.json.error.message).toBe('string');
    expect(answer.json.error.fields.map((field: { path: string }) => field.path)).toContain(row.field);
    expect(await api.snapshot()).toBe(before.snapshot);
  });

  it('refuses a body that is not JSON by its content type (415) and one over the size limit (413), changing nothing', async () => {
    const form = await api.call(h.proxies.POST, '/api/proxies', 'POST', {
      session: true,
      rawBody: 'name=beta&mode=Static&address=192.0.2.1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const huge = await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: true, body: managed({ cloudInit: 'z'.repeat(600 * 1024) }) });
    expect(huge.status).toBe(413);
    const login = await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: 'p'.repeat(20_000) } });
    expect(login.status).toBe(413);
    expect(await api.snapshot()).toBe(before.snapshot);
  });
});
