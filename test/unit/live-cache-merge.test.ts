// How the dashboard merges live messages into its query cache (components/app/live-cache.ts):
// values written where the message carries them, with unchanged Proxies keeping their objects
// (stable row identity), the matching queries invalidated otherwise, everything after a reset.
import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderList } from '@/lib/api/providers';
import type { ProxyList, ProxyView } from '@/lib/api/proxies';
import type { ProxyPhase } from '@/lib/proxy-spec';
import { applyLiveMessages, isStatsQueryOf, mergeProxies } from '@/components/app/live-cache';
import { hostKeys, proxyKeys } from '@/components/query-keys';

const view = (name: string, phase: ProxyPhase = 'Ready'): ProxyView => ({
  uid: `uid-${name}`,
  name,
  mode: 'Static',
  address: '192.0.2.10',
  port: 3128,
  labels: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  status: { phase, healthy: phase === 'Ready', conditions: [], specHash: 'h' },
});
const proxyMessage = (name: string, proxy: ProxyView | null) => ({ kind: 'proxy' as const, name, proxy });
const target = (name: string, ready: boolean) => ({
  name,
  ready,
  reason: ready ? 'Reachable' : 'Unreachable',
  message: '',
  details: {},
  latencyMs: 3,
  checkedAt: '2026-01-01T00:00:00.000Z',
});

let client: QueryClient | undefined;
afterEach(() => client?.clear());

/** A client holding `entries`, each as a query that has data (as if fetched). */
function clientWith(entries: Array<[readonly unknown[], unknown]>): QueryClient {
  client = new QueryClient();
  for (const [key, data] of entries) client.setQueryData(key, data);
  return client;
}
const invalidated = (queryClient: QueryClient, key: readonly unknown[]) => queryClient.getQueryState(key)?.isInvalidated ?? false;

describe('merging Proxy messages into the list', () => {
  const list: ProxyList = { proxies: [view('a'), view('c'), view('e')] };

  it('replaces the changed Proxy and keeps every other object as it was', () => {
    const merged = mergeProxies(list, [proxyMessage('c', view('c', 'Failed'))]);
    expect(merged.proxies.map((proxy) => proxy.status.phase)).toEqual(['Ready', 'Failed', 'Ready']);
    expect(merged.proxies[0]).toBe(list.proxies[0]);
    expect(merged.proxies[2]).toBe(list.proxies[2]);
  });

  it('inserts new Proxies in name order, drops removed ones, and lets the last message per name win', () => {
    const merged = mergeProxies(list, [
      proxyMessage('d', view('d', 'Pending')),
      proxyMessage('b', view('b')),
      proxyMessage('e', null),
      proxyMessage('d', view('d', 'Running')),
    ]);
    expect(merged.proxies.map((proxy) => `${proxy.name}:${proxy.status.phase}`)).toEqual(['a:Ready', 'b:Ready', 'c:Ready', 'd:Running']);
  });

  it('returns the same list when nothing in it changed (a removal of an unknown Proxy)', () => {
    expect(mergeProxies(list, [proxyMessage('zz', null)])).toBe(list);
  });
});

describe('applying live messages to the cache', () => {
  it('writes a Proxy into the list and into its open page, creates no page that is not open, and refetches its events and probes', () => {
    const queryClient = clientWith([
      [proxyKeys.list, { proxies: [view('a'), view('b')] }],
      [proxyKeys.detail('a'), view('a')],
      [proxyKeys.events('a'), { events: [] }],
      [proxyKeys.probes('a', 3_600_000), { samples: [] }],
      [proxyKeys.events('b'), { events: [] }],
    ]);
    applyLiveMessages(queryClient, [proxyMessage('a', view('a', 'Failed')), proxyMessage('b', view('b', 'Running'))]);
    expect(queryClient.getQueryData<ProxyList>(proxyKeys.list)?.proxies.map((proxy) => proxy.status.phase)).toEqual(['Failed', 'Running']);
    expect(queryClient.getQueryData<ProxyView>(proxyKeys.detail('a'))?.status.phase).toBe('Failed');
    expect(queryClient.getQueryData(proxyKeys.detail('b'))).toBeUndefined();
    expect(invalidated(queryClient, proxyKeys.events('a'))).toBe(true);
    expect(invalidated(queryClient, proxyKeys.probes('a', 3_600_000))).toBe(true);
    expect(invalidated(queryClient, proxyKeys.list)).toBe(false);
  });

  it('refetches the page of a removed Proxy instead of writing it', () => {
    const queryClient = clientWith([
      [proxyKeys.list, { proxies: [view('a')] }],
      [proxyKeys.detail('a'), view('a')],
    ]);
    applyLiveMessages(queryClient, [proxyMessage('a', null)]);
    expect(queryClient.getQueryData<ProxyList>(proxyKeys.list)?.proxies).toEqual([]);
    expect(invalidated(queryClient, proxyKeys.detail('a'))).toBe(true);
  });

  it('writes a provider’s targets into the providers list and refetches its health history only', () => {
    const providers: ProviderList = {
      providers: [
        { name: 'kvm2-home', type: 'kvm2', available: true, targets: [target('hv-1', true)] },
        { name: 'other', type: 'kvm2', available: true, targets: [target('x', true)] },
      ],
    };
    const queryClient = clientWith([
      [hostKeys.providers, providers],
      [hostKeys.history('kvm2-home', 3_600_000), { samples: [] }],
      [hostKeys.history('other', 3_600_000), { samples: [] }],
    ]);
    applyLiveMessages(queryClient, [{ kind: 'health', provider: 'kvm2-home', targets: [target('hv-1', false)] }]);
    const after = queryClient.getQueryData<ProviderList>(hostKeys.providers)!;
    expect(after.providers[0]!.targets).toEqual([target('hv-1', false)]);
    expect(after.providers[1]).toBe(providers.providers[1]);
    expect(invalidated(queryClient, hostKeys.history('kvm2-home', 3_600_000))).toBe(true);
    expect(invalidated(queryClient, hostKeys.history('other', 3_600_000))).toBe(false);
  });

  it('refetches the stats queries naming the host or the Proxy of a stats message', () => {
    const message = { kind: 'stats' as const, provider: 'kvm2-home', host: 'hv-1', proxy: 'alpha' };
    expect(isStatsQueryOf(['stats', 'kvm2-home', 'hv-1', 3_600_000], message)).toBe(true);
    expect(isStatsQueryOf(['stats', 'proxy', 'alpha', 3_600_000], message)).toBe(true);
    expect(isStatsQueryOf(['stats', 'kvm2-home', 'hv-2'], message)).toBe(false);
    expect(isStatsQueryOf(['proxies', 'detail', 'alpha'], message)).toBe(false);
    const queryClient = clientWith([
      [['stats', 'kvm2-home', 'hv-1'], {}],
      [['stats', 'kvm2-home', 'hv-2'], {}],
    ]);
    applyLiveMessages(queryClient, [message]);
    expect(invalidated(queryClient, ['stats', 'kvm2-home', 'hv-1'])).toBe(true);
    expect(invalidated(queryClient, ['stats', 'kvm2-home', 'hv-2'])).toBe(false);
  });

  it.each([
    ['a reset', { kind: 'reset' as const, reason: 'expired' as const }],
    ['a fresh connection (not resumed)', { kind: 'ready' as const, resumed: false }],
  ])('refetches everything after %s', (_what, message) => {
    const queryClient = clientWith([
      [proxyKeys.list, { proxies: [] }],
      [hostKeys.providers, { providers: [] }],
    ]);
    applyLiveMessages(queryClient, [message]);
    expect(invalidated(queryClient, proxyKeys.list)).toBe(true);
    expect(invalidated(queryClient, hostKeys.providers)).toBe(true);
  });

  it('changes nothing on a resumed connection', () => {
    const queryClient = clientWith([[proxyKeys.list, { proxies: [view('a')] }]]);
    const before = queryClient.getQueryData(proxyKeys.list);
    applyLiveMessages(queryClient, [{ kind: 'ready', resumed: true }]);
    expect(queryClient.getQueryData(proxyKeys.list)).toBe(before);
    expect(invalidated(queryClient, proxyKeys.list)).toBe(false);
  });
});
