// How a live message (GET /api/events) updates the dashboard's TanStack Query cache. Messages that
// carry the new value are written in (a Proxy's view into the list and its page, a provider's
// targets into the providers list, a domain's new state into its row of the host listing); the rest
// invalidate the queries showing what they name. The lists keep the objects of unchanged rows, so
// those rows see the same props and skip rendering.
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { LiveMessage } from '@/lib/api/live';
import type { HostInventoryView, ProviderList } from '@/lib/api/providers';
import type { ProxyList, ProxyView } from '@/lib/api/proxies';
import { gatewayKeys, hostKeys, proxyKeys, proxySetKeys } from '@/components/query-keys';

type ProxyMessage = Extract<LiveMessage, { kind: 'proxy' }>;
type HealthMessage = Extract<LiveMessage, { kind: 'health' }>;
type StatsMessage = Extract<LiveMessage, { kind: 'stats' }>;
type DomainMessage = Extract<LiveMessage, { kind: 'domain' }>;

/**
 * The list with `messages` applied in order (the last one per name wins): changed Proxies replaced,
 * new ones inserted in name order (the server's), removed ones dropped; every other element and,
 * when nothing changed, the list itself kept as they were.
 */
export function mergeProxies(list: ProxyList, messages: ProxyMessage[]): ProxyList {
  const latest = new Map<string, ProxyView | null>();
  for (const message of messages) latest.set(message.name, message.proxy);
  let changed = false;
  const proxies: ProxyView[] = [];
  for (const proxy of list.proxies) {
    if (!latest.has(proxy.name)) {
      proxies.push(proxy);
      continue;
    }
    const next = latest.get(proxy.name) ?? null;
    latest.delete(proxy.name);
    changed = true;
    if (next) proxies.push(next);
  }
  const added = [...latest.values()].filter((proxy): proxy is ProxyView => proxy !== null);
  if (added.length > 0) {
    changed = true;
    proxies.push(...added);
    proxies.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return changed ? { proxies } : list;
}

/** The providers list with `message`'s targets for its provider (unknown providers: unchanged). */
export function mergeHealth(list: ProviderList, message: HealthMessage): ProviderList {
  if (!list.providers.some((provider) => provider.name === message.provider)) return list;
  return { providers: list.providers.map((provider) => (provider.name === message.provider ? { ...provider, targets: message.targets } : provider)) };
}

/**
 * The host listing with `message` applied to its row, as cockpit-machines applies a VM's events:
 * the state it carries written in, a removed domain's row dropped; every other row, and the listing
 * when nothing changed, kept as they were. Undefined when only a refetch can tell: a domain the
 * listing does not have yet (its kind and mark come from the listing) or a state that was not read.
 * A removed domain's images keep their usage counts until the page's next poll.
 */
export function mergeDomain(listing: HostInventoryView, message: DomainMessage): HostInventoryView | undefined {
  const index = listing.domains.findIndex((domain) => domain.name === message.name);
  if (message.removed) return index < 0 ? listing : { ...listing, domains: listing.domains.filter((_, at) => at !== index) };
  const row = listing.domains[index];
  if (!row || message.state === undefined) return undefined;
  if (row.state === message.state) return listing;
  return { ...listing, domains: listing.domains.map((domain, at) => (at === index ? { ...domain, state: message.state as string } : domain)) };
}

/**
 * Stats queries (the telemetry charts) are keyed `['stats', ...]` with the provider, host and
 * Proxy names among the key's parts: a stats message invalidates those naming its host or Proxy.
 */
export function isStatsQueryOf(key: QueryKey, message: StatsMessage): boolean {
  if (key[0] !== 'stats') return false;
  const parts = key.slice(1);
  // The gateway's rounds name a Proxy and no host ('' would match every key without a host).
  const ofHost = message.provider !== '' && parts.includes(message.provider) && parts.includes(message.host);
  return (message.proxy !== undefined && parts.includes(message.proxy)) || ofHost;
}

function invalidate(queryClient: QueryClient, queryKey: QueryKey): void {
  void queryClient.invalidateQueries({ queryKey });
}

/** Writes a domain message into its host's listing when it is shown, or refetches the listing when only that can tell. */
function applyDomain(queryClient: QueryClient, message: DomainMessage): void {
  const key = hostKeys.inventory(message.provider, message.target);
  const listing = queryClient.getQueryData<HostInventoryView>(key);
  // No page shows the host: its listing is fetched when one opens.
  if (listing === undefined) return;
  const merged = mergeDomain(listing, message);
  if (merged === undefined) invalidate(queryClient, key);
  else if (merged !== listing) queryClient.setQueryData(key, merged);
}

/** Applies a batch of messages (in arrival order) to the cache. */
export function applyLiveMessages(queryClient: QueryClient, messages: LiveMessage[]): void {
  if (messages.some((message) => message.kind === 'reset' || (message.kind === 'ready' && !message.resumed))) {
    // Changes were missed (or may have been, on a fresh connection): refetch what is shown.
    void queryClient.invalidateQueries();
    return;
  }
  const proxyMessages = messages.filter((message): message is ProxyMessage => message.kind === 'proxy');
  if (proxyMessages.length > 0) {
    queryClient.setQueryData<ProxyList>(proxyKeys.list, (list) => (list ? mergeProxies(list, proxyMessages) : list));
    for (const { name, proxy } of proxyMessages) {
      // Only a page already open is written; a removed Proxy's page refetches (and shows it is gone).
      if (proxy && queryClient.getQueryData(proxyKeys.detail(name)) !== undefined) queryClient.setQueryData(proxyKeys.detail(name), proxy);
      else if (!proxy) invalidate(queryClient, proxyKeys.detail(name));
    }
    for (const name of new Set(proxyMessages.map((message) => message.name))) {
      invalidate(queryClient, proxyKeys.events(name));
      invalidate(queryClient, proxyKeys.probesOf(name));
    }
  }
  for (const message of messages) {
    if (message.kind === 'health') {
      queryClient.setQueryData<ProviderList>(hostKeys.providers, (list) => (list ? mergeHealth(list, message) : list));
      invalidate(queryClient, hostKeys.healthOf(message.provider));
    } else if (message.kind === 'domain') {
      applyDomain(queryClient, message);
    } else if (message.kind === 'proxyset') {
      // The message names the set only: its page, its events and the Sets page refetch.
      invalidate(queryClient, proxySetKeys.list);
      invalidate(queryClient, proxySetKeys.detail(message.name));
      invalidate(queryClient, proxySetKeys.events(message.name));
    } else if (message.kind === 'gateway') {
      // The message says only that traffic moved: the page and the overview's tile refetch the totals.
      invalidate(queryClient, gatewayKeys.view);
    } else if (message.kind === 'stats') {
      void queryClient.invalidateQueries({ predicate: (query) => isStatsQueryOf(query.queryKey, message) });
    }
  }
}
