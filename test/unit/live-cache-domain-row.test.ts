// A domain lifecycle message updates the one row it names on the open host page (components/app/
// live-cache.ts), as cockpit-machines sets a VM's state from its events: the state it carries is
// written into that row, a removed domain's row goes, and the host listing (which lists the host over
// libvirt again) is not fetched. Only what the message cannot tell refetches the listing: a domain
// the listing does not have yet (its kind and mark), or a state that could not be read.
import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveMessage } from '@/lib/api/live';
import type { DomainView, HostInventoryView } from '@/lib/api/providers';
import { applyLiveMessages } from '@/components/app/live-cache';
import { hostKeys } from '@/components/query-keys';

const row = (name: string, state: string, extra: Partial<DomainView> = {}): DomainView => ({ name, state, kind: 'foreign', ...extra });

const listing = (host: string, domains: DomainView[]): HostInventoryView => ({
  provider: 'kvm2-home',
  host,
  pool: 'default',
  pools: [],
  images: [],
  domains,
  downloads: [],
});

const message = (name: string, more: { event: string; state?: string; removed?: true; target?: string }): LiveMessage => ({
  kind: 'domain',
  provider: 'kvm2-home',
  target: more.target ?? 'hv-1',
  name,
  providerID: `hosts/${more.target ?? 'hv-1'}/domains/${name}`,
  event: more.event,
  ...(more.state !== undefined ? { state: more.state } : {}),
  ...(more.removed ? { removed: true as const } : {}),
});

const stops: Array<() => void> = [];
let client: QueryClient | undefined;
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  client?.clear();
});

/** A host page open on hv-1 and hv-2 (their listings observed, as the page does), with a count of each listing's fetches. */
async function openHostPages(first: HostInventoryView, second: HostInventoryView) {
  client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  const queryClient = client;
  const fetches = { 'hv-1': 0, 'hv-2': 0 };
  const served: Record<'hv-1' | 'hv-2', HostInventoryView> = { 'hv-1': first, 'hv-2': second };
  for (const host of ['hv-1', 'hv-2'] as const) {
    const observer = new QueryObserver(queryClient, {
      queryKey: hostKeys.inventory('kvm2-home', host),
      queryFn: async () => {
        fetches[host] += 1;
        return served[host];
      },
    });
    stops.push(observer.subscribe(() => undefined));
  }
  const settled = async () => {
    while (queryClient.isFetching() > 0) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  await settled();
  fetches['hv-1'] = fetches['hv-2'] = 0;
  const shown = (host: 'hv-1' | 'hv-2') => queryClient.getQueryData<HostInventoryView>(hostKeys.inventory('kvm2-home', host));
  return { queryClient, fetches, settled, shown };
}

describe('a domain message on the open host page', () => {
  it('writes the state it carries into that row only, and fetches no listing', async () => {
    const first = listing('hv-1', [row('proxy-a', 'running', { kind: 'managed', proxy: 'a', ip: '192.0.2.7' }), row('web-1', 'running')]);
    const page = await openHostPages(first, listing('hv-2', [row('proxy-a', 'running')]));
    applyLiveMessages(page.queryClient, [message('proxy-a', { event: 'Suspended/Paused', state: 'paused' })]);
    await page.settled();
    const shown = page.shown('hv-1')!;
    expect(shown.domains).toEqual([row('proxy-a', 'paused', { kind: 'managed', proxy: 'a', ip: '192.0.2.7' }), row('web-1', 'running')]);
    // The other row keeps its object (it does not render again); the other host is untouched.
    expect(shown.domains[1]).toBe(first.domains[1]);
    expect(page.shown('hv-2')?.domains[0]?.state).toBe('running');
    expect(page.fetches).toEqual({ 'hv-1': 0, 'hv-2': 0 });
  });

  it('applies a batch in order: the last state of a domain wins', async () => {
    const page = await openHostPages(listing('hv-1', [row('web-1', 'running')]), listing('hv-2', []));
    applyLiveMessages(page.queryClient, [
      message('web-1', { event: 'Suspended/Paused', state: 'paused' }),
      message('web-1', { event: 'Resumed/Unpaused', state: 'running' }),
      message('web-1', { event: 'Stopped/Destroyed', state: 'shut off' }),
    ]);
    await page.settled();
    expect(page.shown('hv-1')?.domains).toEqual([row('web-1', 'shut off')]);
    expect(page.fetches).toEqual({ 'hv-1': 0, 'hv-2': 0 });
  });

  it('drops the row of a removed domain without fetching the listing', async () => {
    const page = await openHostPages(listing('hv-1', [row('web-1', 'shut off'), row('web-2', 'running')]), listing('hv-2', []));
    applyLiveMessages(page.queryClient, [message('web-1', { event: 'Undefined', removed: true })]);
    await page.settled();
    expect(page.shown('hv-1')?.domains).toEqual([row('web-2', 'running')]);
    expect(page.fetches).toEqual({ 'hv-1': 0, 'hv-2': 0 });
  });

  it.each([
    ['a domain the listing does not have yet', message('web-9', { event: 'Defined/Added', state: 'shut off' })],
    ['a change whose state could not be read', message('web-1', { event: 'Started/Booted' })],
  ])('refetches that host’s listing only for %s', async (_what, sent) => {
    const page = await openHostPages(listing('hv-1', [row('web-1', 'running')]), listing('hv-2', []));
    applyLiveMessages(page.queryClient, [sent]);
    await page.settled();
    expect(page.fetches).toEqual({ 'hv-1': 1, 'hv-2': 0 });
  });

  it('leaves a host whose page is not open alone (its listing is fetched when it opens)', () => {
    client = new QueryClient();
    applyLiveMessages(client, [message('web-1', { event: 'Suspended/Paused', state: 'paused' })]);
    expect(client.getQueryData(hostKeys.inventory('kvm2-home', 'hv-1'))).toBeUndefined();
  });
});
