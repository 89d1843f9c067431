// Each resource of the HTTP API over the runtime with a fake provider: the happy path a dashboard
// or crawler client takes, and the 404/409 answers around it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlers as h, startApi, type ApiHarness } from './api-harness';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

const managed = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  mode: 'Managed',
  provider: 'fake-1',
  placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' },
  cloudInit: '#cloud-config\npackages: [squid]\n',
  labels: { pool: 'crawlers' },
  ...extra,
});

describe('the HTTP API', () => {
  it('answers healthz without a session', async () => {
    const answer = await api.call(h.healthz.GET as never, '/api/healthz', 'GET');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ ok: true });
  });

  it('lists providers with the latest health of each host, and their health history', async () => {
    const listed = await api.call(h.providers.GET, '/api/providers', 'GET', { session: true });
    expect(listed.status).toBe(200);
    expect(listed.json.providers).toMatchObject([
      { name: 'fake-1', type: 'fake', available: true, targets: [{ name: 'host-a', ready: true, reason: 'Reachable', latencyMs: 2 }] },
      { name: 'kvm2-home', type: 'kvm2', available: true, targets: [{ name: 'hv-1', ready: true, reason: 'Reachable' }] },
    ]);
    expect(typeof listed.json.providers[0].targets[0].checkedAt).toBe('string');

    const since = new Date(Date.now() - 60_000).toISOString();
    const history = await api.call(h.providerHealth.GET, `/api/providers/fake-1/health?since=${encodeURIComponent(since)}`, 'GET', {
      session: true,
      params: { provider: 'fake-1' },
    });
    expect(history.status).toBe(200);
    expect(history.json).toMatchObject({ provider: 'fake-1', samples: [{ target: 'host-a', ready: true, reason: 'Reachable' }] });
    const future = await api.call(h.providerHealth.GET, `/api/providers/fake-1/health?since=${Date.now() + 60_000}`, 'GET', {
      session: true,
      params: { provider: 'fake-1' },
    });
    expect(future.json.samples).toEqual([]);
    const unknown = await api.call(h.providerHealth.GET, '/api/providers/nope/health', 'GET', { session: true, params: { provider: 'nope' } });
    expect(unknown.status).toBe(404);
  });

  it('answers stats only for what exists: 404 for an unknown Proxy or host, 422 for a provider without host stats', async () => {
    const proxy = await api.call(h.proxyStats.GET, '/api/proxies/nobody/stats', 'GET', { session: true, params: { name: 'nobody' } });
    expect([proxy.status, proxy.json.error.code]).toEqual([404, 'ERR_PROXY_NOT_FOUND']);
    const host = await api.call(h.hostStats.GET, '/api/providers/kvm2-home/hosts/hv-9/stats', 'GET', {
      session: true,
      params: { provider: 'kvm2-home', host: 'hv-9' },
    });
    expect([host.status, host.json.error.message]).toEqual([404, 'no host named "hv-9"']);
    const fake = await api.call(h.hostStats.GET, '/api/providers/fake-1/hosts/host-a/stats', 'GET', {
      session: true,
      params: { provider: 'fake-1', host: 'host-a' },
    });
    expect(fake.status).toBe(422);
  });

  it('summarises the config with the kvm2 catalogue, image URLs stripped of credentials', async () => {
    const answer = await api.call(h.config.GET, '/api/config', 'GET', { session: true });
    expect(answer.status).toBe(200);
    expect(answer.json.source).toMatch(/providers\.yaml$/);
    const kvm2 = answer.json.providers.find((entry: { name: string }) => entry.name === 'kvm2-home');
    expect(kvm2).toMatchObject({
      type: 'kvm2',
      available: true,
      catalogue: {
        hosts: [{ name: 'hv-1', address: '10.0.0.1:22', user: 'virt', pool: 'default', bridge: 'br0', virtType: 'qemu' }],
        images: [{ key: 'debian', url: 'http://127.0.0.1:9/debian.qcow2', format: 'qcow2', firmware: 'uefi' }],
        machineTypes: [{ name: 'small', vcpus: 1, memoryMiB: 256 }],
        diskSizeGb: 10,
      },
    });
    const fake = answer.json.providers.find((entry: { name: string }) => entry.name === 'fake-1');
    expect(fake).not.toHaveProperty('catalogue');
    expect(answer.text).not.toContain('hunter2');
    expect(answer.text).not.toContain('sig=');
    expect(answer.text).not.toContain('sshKeyFile');
  });

  it('creates a Managed Proxy that reaches Ready, lists it with filters and serves its JSON', async () => {
    const created = await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: true, body: managed('alpha') });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'alpha', mode: 'Managed', provider: 'fake-1', port: 3128, cloudInit: { bytes: 32 } });
    await expect
      .poll(async () => (await api.runtime.services.proxies.get('alpha')).status.phase === 'Ready', { message: 'alpha to be Ready', timeout: 5_000 })
      .toBe(true);

    const one = await api.call(h.proxy.GET, '/api/proxies/alpha', 'GET', { session: true, params: { name: 'alpha' } });
    expect(one.status).toBe(200);
    expect(Object.keys(one.json)).toEqual(expect.arrayContaining(['name', 'mode', 'provider', 'placement', 'cloudInit', 'port', 'labels', 'status']));
    expect(Object.keys(one.json.status)).toEqual(expect.arrayContaining(['phase', 'ip', 'healthy', 'providerID', 'conditions']));
    expect(one.json.status).toMatchObject({ phase: 'Ready', healthy: true, providerID: 'fake/proxy-' + one.json.instanceName.slice('proxy-'.length) });
    expect(one.json.placement).toEqual({ zone: 'host-a', machineType: 'small', image: 'debian-13' });

    await api.call(h.proxies.POST, '/api/proxies', 'POST', {
      session: true,
      body: { name: 'static-1', mode: 'Static', address: '192.0.2.10', labels: { pool: 'other' } },
    });
    const all = await api.call(h.proxies.GET, '/api/proxies', 'GET', { session: true });
    expect(all.json.proxies.map((view: { name: string }) => view.name)).toEqual(['alpha', 'static-1']);
    const crawlers = await api.call(h.proxies.GET, '/api/proxies?labels=pool%3Dcrawlers', 'GET', { session: true });
    expect(crawlers.json.proxies.map((view: { name: string }) => view.name)).toEqual(['alpha']);
    const statics = await api.call(h.proxies.GET, '/api/proxies?mode=Static', 'GET', { session: true });
    expect(statics.json.proxies.map((view: { name: string }) => view.name)).toEqual(['static-1']);
    const ready = await api.call(h.proxies.GET, '/api/proxies?phase=Ready&label=pool%3Dcrawlers', 'GET', { session: true });
    expect(ready.json.proxies.map((view: { name: string }) => view.name)).toEqual(['alpha']);
  });

  it('refuses a second Proxy of the same name (409) and answers 404 for one that does not exist', async () => {
    const again = await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: true, body: managed('alpha') });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('ERR_PROXY_EXISTS');
    expect(again.json.error.message).toContain('alpha');
    for (const [handler, method] of [
      [h.proxy.GET, 'GET'],
      [h.proxy.PUT, 'PUT'],
      [h.proxy.DELETE, 'DELETE'],
      [h.proxyEvents.GET, 'GET'],
      [h.proxyDownload.GET, 'GET'],
    ] as const) {
      const body = method === 'PUT' ? { mode: 'Static', address: '192.0.2.1' } : undefined;
      const answer = await api.call(handler, '/api/proxies/ghost', method, { session: true, params: { name: 'ghost' }, body });
      expect(answer.status, `${method} ghost`).toBe(404);
    }
  });

  it('updates a spec (the VM is replaced) and records the events of the Proxy', async () => {
    const before = await api.runtime.services.proxies.get('alpha');
    const updated = await api.call(h.proxy.PUT, '/api/proxies/alpha', 'PUT', {
      session: true,
      params: { name: 'alpha' },
      body: { mode: 'Managed', provider: 'fake-1', placement: { zone: 'host-a', machineType: 'large', image: 'debian-13' }, labels: { pool: 'crawlers' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.json.placement.machineType).toBe('large');
    expect(updated.json.status.specHash).not.toBe(before.status.specHash);
    // cloudInit left out keeps the stored one
    expect(updated.json.cloudInit).toEqual({ bytes: 32 });
    await expect
      .poll(async () => (await api.runtime.services.proxies.get('alpha')).status.observedSpecHash === updated.json.status.specHash, {
        message: 'the replacement',
        timeout: 5_000,
      })
      .toBe(true);
    const events = await api.call(h.proxyEvents.GET, '/api/proxies/alpha/events?limit=50', 'GET', { session: true, params: { name: 'alpha' } });
    expect(events.status).toBe(200);
    expect(events.json.events.map((event: { reason: string }) => event.reason)).toEqual(expect.arrayContaining(['Created', 'SpecUpdated']));
  });

  it('serves Ready proxies to crawler clients with an API token, filtered by labels', async () => {
    const created = await api.call(h.tokens.POST, '/api/tokens', 'POST', { session: true, body: { name: 'crawler' } });
    expect(created.status).toBe(201);
    const secret: string = created.json.token;
    await expect
      .poll(async () => (await api.runtime.services.proxies.get('alpha')).status.phase === 'Ready', { message: 'alpha Ready again', timeout: 5_000 })
      .toBe(true);
    const found = await api.call(h.discovery.GET, '/api/discovery/proxies?labels=pool%3Dcrawlers', 'GET', { bearer: secret });
    expect(found.status).toBe(200);
    const ip = (await api.runtime.services.proxies.get('alpha')).status.ip;
    expect(found.json.proxies).toEqual([{ name: 'alpha', url: `http://${ip}:3128`, labels: { pool: 'crawlers' }, egressIP: '203.0.113.9' }]);
    const none = await api.call(h.discovery.GET, '/api/discovery/proxies?label=pool%3Dnobody', 'GET', { bearer: secret });
    expect(none.json).toEqual({ proxies: [] });
    const scraped = await api.call(h.metrics.GET, '/api/metrics', 'GET', { bearer: secret });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    expect(scraped.text).toContain('proxy_operator_provider_target_up{provider="fake-1",target="host-a"} 1');
    expect(scraped.text).toContain('proxy_operator_reconcile_total');
    expect(scraped.text).toContain('proxy_operator_probe_duration_seconds');
  });

  it('creates, lists (without secrets) and revokes API tokens', async () => {
    const created = await api.call(h.tokens.POST, '/api/tokens', 'POST', { session: true, body: { name: 'scraper' } });
    expect(created.json).toMatchObject({ name: 'scraper', prefix: expect.stringMatching(/^kvm2p_[0-9a-f]{16}$/) });
    expect(created.json.token.startsWith(created.json.prefix + '_')).toBe(true);
    const listed = await api.call(h.tokens.GET, '/api/tokens', 'GET', { session: true });
    expect(listed.json.tokens.map((entry: { name: string }) => entry.name)).toEqual(['crawler', 'scraper']);
    expect(listed.text).not.toContain(created.json.token);
    expect(listed.json.tokens[0]).not.toHaveProperty('token');
    const revoked = await api.call(h.token.DELETE, `/api/tokens/${created.json.id}`, 'DELETE', { session: true, params: { id: created.json.id } });
    expect(revoked.status).toBe(200);
    const refused = await api.call(h.metrics.GET, '/api/metrics', 'GET', { bearer: created.json.token });
    expect(refused.status).toBe(401);
    const twice = await api.call(h.token.DELETE, `/api/tokens/${created.json.id}`, 'DELETE', { session: true, params: { id: created.json.id } });
    expect(twice.status).toBe(404);
  });

  it('reports no download for a Proxy that waits on none, and the live progress of one that does', async () => {
    const none = await api.call(h.proxyDownload.GET, '/api/proxies/alpha/download', 'GET', { session: true, params: { name: 'alpha' } });
    expect(none.json).toEqual({ download: null });
    api.kvm2.downloads.start({ host: 'hv-1', volume: 'base-kvm2-home-debian.qcow2', urlHost: '127.0.0.1:9', totalBytes: 1000 })(250);
    // The reconciler would try (and fail) to fetch the image meanwhile; the tracker entry is ours.
    api.fake.failAlways('create', new Error('not used'));
    await api.runtime.store.proxies.insert({
      uid: 'uid-kvm',
      name: 'on-kvm2',
      spec: {
        mode: 'Managed',
        provider: 'kvm2-home',
        placement: { zone: 'hv-1', machineType: 'small', image: 'debian' },
        cloudInit: '',
        port: 3128,
        labels: {},
      },
      now: new Date().toISOString(),
    });
    const progress = await api.call(h.proxyDownload.GET, '/api/proxies/on-kvm2/download', 'GET', { session: true, params: { name: 'on-kvm2' } });
    expect(progress.json.download).toMatchObject({ host: 'hv-1', volume: 'base-kvm2-home-debian.qcow2', totalBytes: 1000, doneBytes: 250 });
    api.kvm2.downloads.finish('hv-1', 'base-kvm2-home-debian.qcow2');
    await api.runtime.store.proxies.remove('uid-kvm');
    api.fake.failAlways('create', undefined);
  });

  it('deletes a Proxy: 202 with the deletion recorded, then gone', async () => {
    const deleted = await api.call(h.proxy.DELETE, '/api/proxies/static-1', 'DELETE', { session: true, params: { name: 'static-1' } });
    expect(deleted.status).toBe(202);
    expect(typeof deleted.json.deletionRequestedAt).toBe('string');
    expect(deleted.json.status.phase).toBe('Deleting');
    await expect.poll(async () => (await api.runtime.store.proxies.get('static-1')) === undefined, { message: 'static-1 to go', timeout: 5_000 }).toBe(true);
    const gone = await api.call(h.proxy.GET, '/api/proxies/static-1', 'GET', { session: true, params: { name: 'static-1' } });
    expect(gone.status).toBe(404);
  });
});
