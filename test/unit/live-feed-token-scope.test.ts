// What an API token hears on GET /api/events. A token is a crawler client's reader credential: it
// may call discovery and metrics, not the admin routes, so its stream carries only Proxy changes,
// with every URL in them reduced to scheme, host and path (an image URL's credentials and signed
// query are the admin's secrets). Host health, domain lifecycle, stats and the gateway's traffic
// stay with sessions.
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveChange } from '@/lib/api/live';
import type { ProxyView } from '@/lib/api/proxies';
import { type ApiHarness, handlers as h, startApi } from './api-harness';

let api: ApiHarness | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const secretUrl = 'https://mirror:s3cret@images.lan/debian-12.qcow2?X-Amz-Signature=deadbeef#frag';
const view: ProxyView = {
  uid: 'uid-alpha',
  name: 'alpha',
  mode: 'Managed',
  provider: 'kvm2-home',
  placement: { zone: 'hv-1', machineType: 'small', image: secretUrl },
  port: 3128,
  labels: { pool: 'crawl' },
  cloudInit: { bytes: 120 },
  createdAt: '2026-05-01T10:00:00.000Z',
  updatedAt: '2026-05-01T10:00:00.000Z',
  status: {
    phase: 'Failed',
    healthy: false,
    conditions: [
      { type: 'Provisioned', status: 'False', reason: 'ImageFailed', message: `fetching ${secretUrl} failed`, lastTransitionTime: '2026-05-01T10:00:00.000Z' },
    ],
    specHash: 'h',
    lastError: { class: 'permanent', message: `GET ${secretUrl}: 403`, at: '2026-05-01T10:00:00.000Z' },
  },
};
const changes: LiveChange[] = [
  { kind: 'proxy', name: 'alpha', proxy: view },
  { kind: 'health', provider: 'kvm2-home', targets: [] },
  { kind: 'domain', provider: 'kvm2-home', target: 'hv-1', name: 'proxy-1', providerID: 'hosts/hv-1/domains/proxy-1', event: 'Started/Booted', proxy: 'alpha' },
  { kind: 'stats', provider: 'kvm2-home', host: 'hv-1' },
  { kind: 'gateway' },
];

describe('GET /api/events for an API token', () => {
  it('carries Proxy changes only, their URLs without credentials, query or fragment; a session still gets everything as it is', async () => {
    api = await startApi();
    const created = await api.call(h.tokens.POST, '/api/tokens', 'POST', { session: true, body: { name: 'crawler' } });
    expect(created.status).toBe(201);
    const from = api.runtime.services.live.head();
    for (const change of changes) api.runtime.services.live.publish(change);

    const asToken = await api.call(h.liveEvents.GET, '/api/events', 'GET', { bearer: created.json.token, headers: { 'last-event-id': from } });
    expect(asToken.status).toBe(200);
    expect(asToken.text).not.toMatch(/s3cret|X-Amz|deadbeef|frag/);
    expect(asToken.json.map((message: { kind: string }) => message.kind)).toEqual(['proxy', 'ready']);
    const proxy = asToken.json[0].proxy;
    expect(proxy.placement.image).toBe('https://images.lan/debian-12.qcow2');
    expect(proxy.status.lastError.message).toBe('GET https://images.lan/debian-12.qcow2: 403');
    expect(proxy.status.conditions[0].message).toBe('fetching https://images.lan/debian-12.qcow2 failed');
    expect(proxy.labels).toEqual({ pool: 'crawl' });

    const asSession = await api.call(h.liveEvents.GET, '/api/events', 'GET', { session: true, headers: { 'last-event-id': from } });
    expect(asSession.json).toEqual([...changes, { kind: 'ready', resumed: true }]);
  });

  it('leaves an image key that is not a URL as it is', async () => {
    api = await startApi();
    const created = await api.call(h.tokens.POST, '/api/tokens', 'POST', { session: true, body: { name: 'crawler' } });
    const from = api.runtime.services.live.head();
    api.runtime.services.live.publish({
      kind: 'proxy',
      name: 'alpha',
      proxy: { ...view, placement: { machineType: 'small', image: 'debian-12' }, status: { ...view.status, conditions: [], lastError: undefined } },
    });
    const asToken = await api.call(h.liveEvents.GET, '/api/events', 'GET', { bearer: created.json.token, headers: { 'last-event-id': from } });
    expect(asToken.json[0].proxy.placement.image).toBe('debian-12');
  });
});
