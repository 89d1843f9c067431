'use client';
// The gateway through the API: its address and live traffic (GET /api/gateway), refetched on the
// live feed's `gateway` message (at most once a second while traffic moves) and every 5 s while
// the tab is visible (the other replicas' traffic, and the fallback when no stream is open). The
// gateway tokens' hooks are Settings' (useTokens('gateway')); everything is keyed under ['gateway'],
// so one invalidation (a live message, a token revoked in Settings) refreshes all of it.
import { useQuery } from '@tanstack/react-query';
import { gatewayViewSchema } from '@/lib/api/gateway';
import { apiRequest } from '@/components/api/client';
import { gatewayKeys } from '@/components/query-keys';

export type { ApiToken as GatewayToken, CreatedToken as CreatedGatewayToken } from '@/lib/api/auth';

/**
 * The live feed's `gateway` message moves the counters while a download runs; this poll (only
 * while visible) brings the other replicas' traffic, which reaches this one through the store.
 */
export const gatewayRefreshMs = 5_000;

export function useGateway() {
  return useQuery({
    queryKey: gatewayKeys.view,
    queryFn: ({ signal }) => apiRequest('/api/gateway', gatewayViewSchema, { signal }),
    // refetchIntervalInBackground stays false: a hidden tab does not poll.
    refetchInterval: gatewayRefreshMs,
  });
}
