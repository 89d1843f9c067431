'use client';
// Stats history through the API: a Proxy's VM (GET /api/proxies/{name}/stats), a host with its
// Proxies' VMs (GET /api/providers/{provider}/hosts/{host}/stats) and the overview's traffic (GET
// /api/stats/traffic). Each query loads its whole window at once and polls at the sampling
// interval; a live stream can call invalidateStatsQueries on every new sample instead.
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { hostStatsSchema, proxyStatsSchema, trafficOverviewSchema, type StatsWindowName } from '@/lib/api/stats';
import { apiRequest } from '@/components/api/client';

export type { DomainSeries, HostPoint, StatsWindowName, VmPoint } from '@/lib/api/stats';

const segment = encodeURIComponent;

export const statsKeys = {
  all: ['stats'] as const,
  proxy: (name: string, window: StatsWindowName) => ['stats', 'proxy', name, window] as const,
  host: (provider: string, host: string, window: StatsWindowName) => ['stats', 'host', provider, host, window] as const,
  traffic: ['stats', 'traffic'] as const,
};

/** The server samples every 10 s by default; polling faster shows nothing new. */
export const statsPollMs = 10_000;

/**
 * What a live update calls when a new sample arrived (the stream's `stats` message): every stats
 * query refetches, or only those of one host's Proxies and that host when the sample names them.
 */
export function invalidateStatsQueries(queryClient: QueryClient, sample?: { provider: string; target: string; proxies: string[] }): Promise<void> {
  if (!sample) return queryClient.invalidateQueries({ queryKey: statsKeys.all });
  const { provider, target, proxies } = sample;
  return queryClient.invalidateQueries({
    predicate: (query) => {
      const [root, kind, first, second] = query.queryKey as readonly unknown[];
      if (root !== 'stats') return false;
      if (kind === 'traffic') return true;
      if (kind === 'host') return first === provider && second === target;
      return kind === 'proxy' && proxies.includes(String(first));
    },
  });
}

export function useProxyStats(name: string, window: StatsWindowName) {
  return useQuery({
    queryKey: statsKeys.proxy(name, window),
    queryFn: ({ signal }) => apiRequest(`/api/proxies/${segment(name)}/stats?window=${window}`, proxyStatsSchema, { signal }),
    refetchInterval: statsPollMs,
    placeholderData: (previous) => previous,
  });
}

export function useHostStats(provider: string, host: string, window: StatsWindowName) {
  return useQuery({
    queryKey: statsKeys.host(provider, host, window),
    queryFn: ({ signal }) => apiRequest(`/api/providers/${segment(provider)}/hosts/${segment(host)}/stats?window=${window}`, hostStatsSchema, { signal }),
    refetchInterval: statsPollMs,
    placeholderData: (previous) => previous,
  });
}

export function useTrafficOverview() {
  return useQuery({
    queryKey: statsKeys.traffic,
    queryFn: ({ signal }) => apiRequest('/api/stats/traffic', trafficOverviewSchema, { signal }),
    refetchInterval: statsPollMs,
  });
}
