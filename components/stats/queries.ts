'use client';
// Stats history through the API: a Proxy's VM (GET /api/proxies/{name}/stats), a host with its
// Proxies' VMs (GET /api/providers/{provider}/hosts/{host}/stats) and the overview's traffic (GET
// /api/stats/traffic). Each query loads its whole window at once. The live stream's `stats` message
// names a host (components/app/live-cache.ts refetches the queries whose key holds its provider and
// host), so a Proxy's key carries where its VM runs; they poll at the sampling interval only while
// the stream is down. The overview's traffic spans every host and always polls.
import { useQuery } from '@tanstack/react-query';
import { hostStatsSchema, proxyStatsSchema, trafficOverviewSchema, type StatsWindowName } from '@/lib/api/stats';
import { apiRequest } from '@/components/api/client';
import { usePollInterval } from '@/components/app/live-status';
import { statsKeys } from '@/components/query-keys';

export type { DomainSeries, HostPoint, StatsWindowName, VmPoint } from '@/lib/api/stats';

const segment = encodeURIComponent;

/** The server samples every 10 s by default; polling faster shows nothing new. */
export const statsPollMs = 10_000;

/** `provider` and `host` name where the VM runs, so a `stats` message for that host refetches it. */
export function useProxyStats({ name, window, provider, host }: { name: string; window: StatsWindowName; provider?: string; host?: string }) {
  return useQuery({
    queryKey: statsKeys.proxy(name, window, { provider, host }),
    queryFn: ({ signal }) => apiRequest(`/api/proxies/${segment(name)}/stats?window=${window}`, proxyStatsSchema, { signal }),
    refetchInterval: usePollInterval(statsPollMs),
    placeholderData: (previous) => previous,
  });
}

export function useHostStats({ provider, host, window }: { provider: string; host: string; window: StatsWindowName }) {
  return useQuery({
    queryKey: statsKeys.host(provider, host, window),
    queryFn: ({ signal }) => apiRequest(`/api/providers/${segment(provider)}/hosts/${segment(host)}/stats?window=${window}`, hostStatsSchema, { signal }),
    refetchInterval: usePollInterval(statsPollMs),
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
