'use client';
// Hosts as the API serves them: providers with the latest health per host (GET /api/providers),
// the health history for the charts (GET /api/providers/{provider}/health?since=), and one host's
// pools, cached images, domains and downloads (GET /api/providers/{provider}/hosts/{host}). The
// first two poll only while the live stream is down; a host's inventory (downloads, pools) always.
import { useQuery } from '@tanstack/react-query';
import { healthHistorySchema, hostInventorySchema, providerListSchema } from '@/lib/api/providers';
import { apiRequest } from '@/components/api/client';
import { usePollInterval } from '@/components/app/live-status';
import { hostKeys } from '@/components/query-keys';

export type { CachedImageView, DomainKind, DomainView, HealthSample, HostInventoryView, PoolView, ProviderSummary, TargetView } from '@/lib/api/providers';

const segment = encodeURIComponent;

export const pollMs = 5_000;

export function useProviders() {
  return useQuery({
    queryKey: hostKeys.providers,
    queryFn: ({ signal }) => apiRequest('/api/providers', providerListSchema, { signal }),
    select: (list) => list.providers,
    refetchInterval: usePollInterval(pollMs),
  });
}

/** The checks of the last `windowMs`, counted back from each fetch. */
export function useHealthHistory(provider: string, windowMs: number) {
  return useQuery({
    queryKey: hostKeys.history(provider, windowMs),
    queryFn: ({ signal }) => {
      const since = new Date(Date.now() - windowMs).toISOString();
      return apiRequest(`/api/providers/${segment(provider)}/health?since=${encodeURIComponent(since)}`, healthHistorySchema, { signal });
    },
    select: (history) => history.samples,
    refetchInterval: usePollInterval(pollMs * 3),
    placeholderData: (previous) => previous,
  });
}

export function useHostInventory(provider: string, host: string) {
  return useQuery({
    queryKey: hostKeys.inventory(provider, host),
    queryFn: ({ signal }) => apiRequest(`/api/providers/${segment(provider)}/hosts/${segment(host)}`, hostInventorySchema, { signal }),
    refetchInterval: pollMs,
  });
}
