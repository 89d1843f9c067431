// One host through the API: pools, cached images with how many domains back onto each, domains
// by kind (managed with its Proxy, orphaned, kvm gen-1, foreign), and eviction: refused with 409
// while in use, done marker-first when not, and the 404/422/503 answers around it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handlers as h, startApi, type ApiHarness } from './api-harness';
import { images, populateHost } from './inventory-fixture';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  populateHost(api.hypervisor);
  await api.runtime.store.proxies.insert({
    uid: 'uid-a',
    name: 'alpha',
    spec: {
      mode: 'Managed',
      provider: 'fake-1',
      placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' },
      cloudInit: '',
      port: 3128,
      labels: {},
    },
    now: new Date().toISOString(),
  });
  api.runtime.loops.reconciler.enqueue('alpha');
  await vi.waitFor(async () => expect((await api.runtime.store.proxies.get('alpha'))?.status.ip, 'alpha to have an IP').toBeDefined(), { timeout: 5_000 });
});
afterAll(async () => {
  await api?.close();
});

const hostPath = '/api/providers/kvm2-home/hosts/hv-1';
const hostParams = { provider: 'kvm2-home', host: 'hv-1' };
const getHost = () => api.call(h.host.GET, hostPath, 'GET', { session: true, params: hostParams });
const evict = (volume: string, params: Record<string, string> = hostParams) =>
  api.call(h.hostImage.DELETE, `/api/providers/${params.provider}/hosts/${params.host}/images/${volume}`, 'DELETE', {
    session: true,
    params: { ...params, volume },
  });

describe('a host through the API', () => {
  it('shows its pools, cached images in use, and every domain with its kind', async () => {
    const answer = await getHost();
    expect(answer.status).toBe(200);
    expect(answer.json.pools.map((pool: { name: string; state: string }) => [pool.name, pool.state])).toEqual([
      ['default', 'running'],
      ['isos', 'inactive'],
    ]);
    const used = answer.json.images.find((image: { volume: string }) => image.volume === images.used);
    expect(used).toMatchObject({ key: 'debian', complete: true, usedBy: 2, domains: ['proxy-a', 'proxy-b'], sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const ip = (await api.runtime.store.proxies.get('alpha'))?.status.ip;
    expect(answer.json.domains).toEqual([
      { name: 'broken-mark', state: 'shut off', kind: 'foreign', note: expect.stringContaining('corrupt kvm2 metadata') },
      { name: 'hand-made', state: 'running', kind: 'foreign' },
      { name: 'old-vm', state: 'shut off', kind: 'kvm-gen-1' },
      { name: 'proxy-a', state: 'running', kind: 'managed', proxy: 'alpha', ip, uid: 'uid-a', created: '2026-01-02T03:04:05Z' },
      { name: 'proxy-b', state: 'shut off', kind: 'orphaned', uid: 'uid-gone', created: '2026-01-02T03:04:05Z' },
    ]);
    expect(answer.json.downloads).toEqual([]);
  });

  it('refuses to evict an image in use with 409, naming the domains, and leaves it in place', async () => {
    const before = await api.snapshot();
    const refused = await evict(images.used);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('ERR_IMAGE_IN_USE');
    expect(refused.json.error.message).toContain('proxy-a, proxy-b');
    expect(await api.snapshot()).toBe(before);
  });

  it('evicts an unused image, marker first, and the host no longer lists it', async () => {
    const done = await evict(images.unused);
    expect(done.status).toBe(200);
    expect(done.json).toEqual({ host: 'hv-1', volume: images.unused, removed: [`${images.unused}.sha256`, images.unused] });
    const after = await getHost();
    expect(after.json.images.map((image: { volume: string }) => image.volume)).not.toContain(images.unused);
  });

  it('answers 404 for an unknown image, host or provider, 422 for a provider without hosts, 503 for an unreachable host', async () => {
    expect((await evict('proxy-a.qcow2')).status).toBe(404);
    expect((await evict(images.unused)).status).toBe(404);
    expect((await evict(images.unused, { provider: 'kvm2-home', host: 'hv-9' })).status).toBe(404);
    expect((await evict(images.unused, { provider: 'nope', host: 'hv-1' })).status).toBe(404);
    expect((await api.call(h.host.GET, '/api/providers/nope/hosts/hv-1', 'GET', { session: true, params: { provider: 'nope', host: 'hv-1' } })).status).toBe(
      404,
    );
    const fake = await api.call(h.host.GET, '/api/providers/fake-1/hosts/host-a', 'GET', { session: true, params: { provider: 'fake-1', host: 'host-a' } });
    expect(fake.status).toBe(422);
    expect(fake.json.error.code).toBe('ERR_UNSUPPORTED_OPERATION');
    expect(fake.json.error.message).toContain('no hosts to list');
    const backend = api.kvm2.backend as { unreachable?: Set<string> };
    backend.unreachable?.add('hv-1');
    const down = await getHost();
    expect(down.status).toBe(503);
    expect(down.json.error.message).toContain('unreachable');
    backend.unreachable?.delete('hv-1');
  });

  it('evicts only on the leader: another replica answers 503 naming where, and deletes nothing', async () => {
    const before = await api.snapshot();
    const leads = vi.spyOn(api.runtime.services.cluster, 'isLeader').mockReturnValue(false);
    try {
      const refused = await evict(images.markerOnly);
      expect(refused.status).toBe(503);
      expect(refused.json.error.code).toBe('ERR_RESOURCE_UNAVAILABLE');
      expect(refused.json.error.message).toContain('GET /api/cluster');
    } finally {
      leads.mockRestore();
    }
    expect(await api.snapshot()).toBe(before);
  });
});
