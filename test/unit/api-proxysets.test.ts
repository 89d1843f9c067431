// The ProxySet routes over the real runtime and the fake provider: bad input is a 400 naming the
// field and changes nothing; unknown and duplicate sets; a member cannot be deleted or edited
// through /api/proxies; discovery filtered by set; the replicas gauge on /api/metrics.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handlers as h, errorOf, startApi, type ApiHarness } from './api-harness';

let api: ApiHarness;
const template = { provider: 'fake-1', placement: { machineType: 'small', image: 'debian-13' }, cloudInit: '#cloud-config\n' };
const crawl = { params: { name: 'crawl' } };
let before = '';

beforeAll(async () => {
  api = await startApi();
  const created = await api.call(h.proxySets.POST, '/api/proxysets', 'POST', { session: true, body: { name: 'crawl', template, replicas: 2 } });
  expect(created.status, created.text).toBe(201);
  await vi.waitFor(async () => expect((await api.runtime.services.proxySets.get('crawl')).status.ready, 'both members Ready').toBe(2), { timeout: 20_000 });
  before = await api.snapshot();
}, 30_000);
afterAll(async () => {
  await api?.close();
});

describe('the ProxySet API', () => {
  it.each([
    [
      'a zone in the template',
      h.proxySets.POST,
      'POST',
      '/api/proxysets',
      {},
      { name: 'other', template: { ...template, placement: { ...template.placement, zone: 'host-a' } }, replicas: 1 },
      'template.placement.zone',
    ],
    [
      'a provider that is not configured',
      h.proxySets.POST,
      'POST',
      '/api/proxysets',
      {},
      { name: 'other', template: { ...template, provider: 'nowhere' }, replicas: 1 },
      'template.provider',
    ],
    ['replicas as a string', h.proxySets.POST, 'POST', '/api/proxysets', {}, { name: 'other', template, replicas: '2' }, 'replicas'],
    [
      'a readyTimeout that is no duration',
      h.proxySets.POST,
      'POST',
      '/api/proxysets',
      {},
      { name: 'other', template, replicas: 1, readyTimeout: 'soon' },
      'readyTimeout',
    ],
    ['a set name too long for its members', h.proxySets.POST, 'POST', '/api/proxysets', {}, { name: 'x'.repeat(58), template, replicas: 1 }, 'name'],
    [
      'another provider in a PUT',
      h.proxySet.PUT,
      'PUT',
      '/api/proxysets/crawl',
      crawl,
      { template: { ...template, provider: 'kvm2-home' }, replicas: 2 },
      'template.provider',
    ],
    ['negative replicas in a scale', h.proxySetScale.POST, 'POST', '/api/proxysets/crawl/scale', crawl, { replicas: -1 }, 'replicas'],
    ['replacing a Proxy that is no member', h.proxySetReplace.POST, 'POST', '/api/proxysets/crawl/replace', crawl, { members: ['alpha'] }, 'members.0'],
  ] as const)('refuses %s with 400 naming %s, changing nothing', async (_, handler, method, path, params, body, field) => {
    const answer = await api.call(handler, path, method, { session: true, ...params, body });
    expect(answer.status, answer.text).toBe(400);
    expect(errorOf(answer).fields?.map((entry) => entry.path)).toContain(field);
    expect(await api.snapshot()).toBe(before);
  });

  it('answers 404 for an unknown set and 409 for a second set of the same name', async () => {
    const missing = await api.call(h.proxySet.GET, '/api/proxysets/nope', 'GET', { session: true, params: { name: 'nope' } });
    expect([missing.status, missing.json.error.code]).toEqual([404, 'ERR_PROXYSET_NOT_FOUND']);
    const again = await api.call(h.proxySets.POST, '/api/proxysets', 'POST', { session: true, body: { name: 'crawl', template, replicas: 1 } });
    expect([again.status, again.json.error.code]).toEqual([409, 'ERR_PROXYSET_EXISTS']);
    expect(await api.snapshot()).toBe(before);
  });

  it('refuses to delete or edit a member through /api/proxies (409 ERR_PROXY_OWNED, saying what to do instead)', async () => {
    const [member] = await api.runtime.services.proxies.list({ labels: { proxyset: 'crawl' } });
    const params = { params: { name: member!.name } };
    const deleted = await api.call(h.proxy.DELETE, `/api/proxies/${member!.name}`, 'DELETE', { session: true, ...params });
    expect([deleted.status, deleted.json.error.code]).toEqual([409, 'ERR_PROXY_OWNED']);
    expect(errorOf(deleted).message).toContain('/api/proxysets/crawl/replace');
    const edited = await api.call(h.proxy.PUT, `/api/proxies/${member!.name}`, 'PUT', {
      session: true,
      ...params,
      body: { mode: 'Managed', provider: 'fake-1', placement: member!.placement, labels: member!.labels },
    });
    expect([edited.status, edited.json.error.code]).toEqual([409, 'ERR_PROXY_OWNED']);
    expect(await api.snapshot()).toBe(before);
  });

  it('discovery filters by set, and refuses a set name that cannot be one', async () => {
    const bySet = await api.call(h.discovery.GET, '/api/discovery/proxies?set=crawl', 'GET', { session: true });
    expect(bySet.json.proxies.map((proxy: { name: string }) => proxy.name).sort()).toEqual(
      (await api.runtime.services.proxies.list({ labels: { proxyset: 'crawl' } })).map((proxy) => proxy.name).sort(),
    );
    const none = await api.call(h.discovery.GET, '/api/discovery/proxies?set=other', 'GET', { session: true });
    expect(none.json.proxies).toEqual([]);
    const bad = await api.call(h.discovery.GET, '/api/discovery/proxies?set=Bad_Name', 'GET', { session: true });
    expect([bad.status, errorOf(bad).fields?.[0]?.path]).toEqual([400, 'set']);
  });

  it('tells live pages when a set changes (a `proxyset` message naming it)', async () => {
    const head = api.runtime.services.live.head();
    const paused = await api.call(h.proxySetPause.POST, '/api/proxysets/crawl/pause', 'POST', { session: true, ...crawl });
    expect(paused.status).toBe(200);
    await api.call(h.proxySetResume.POST, '/api/proxysets/crawl/resume', 'POST', { session: true, ...crawl });
    const resumed = api.runtime.services.live.since(head);
    // One per change by the admin, and one per status the controller wrote since.
    const messages = resumed.kind === 'replay' ? resumed.events.map((event) => event.message).filter((message) => message.kind === 'proxyset') : [];
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expect(new Set(messages.map((message) => JSON.stringify(message)))).toEqual(new Set([JSON.stringify({ kind: 'proxyset', name: 'crawl' })]));
  });

  it('exports proxy_operator_proxyset_replicas by set and state', async () => {
    const answer = await api.call(h.metrics.GET, '/api/metrics', 'GET', { session: true });
    expect(answer.text).toContain('proxy_operator_proxyset_replicas{set="crawl",state="desired"} 2');
    expect(answer.text).toContain('proxy_operator_proxyset_replicas{set="crawl",state="ready"} 2');
  });
});
