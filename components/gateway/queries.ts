'use client';
// The gateway through the API: its address and live traffic (GET /api/gateway), asked again every
// 2 s while the tab is visible, and the gateway tokens (GET|POST /api/gateway/tokens), whose secret
// comes back once, from the POST. Everything is keyed under ['gateway'], so one invalidation (a
// live message, a token revoked in Settings) refreshes all of it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createdTokenSchema, tokenListSchema } from '@/lib/api/auth';
import { gatewayViewSchema } from '@/lib/api/gateway';
import { apiRequest } from '@/components/api/client';

export type { ApiToken as GatewayToken, CreatedToken as CreatedGatewayToken } from '@/lib/api/auth';

export const gatewayKeys = {
  all: ['gateway'] as const,
  view: ['gateway', 'view'] as const,
  tokens: ['gateway', 'tokens'] as const,
};

/** Counters move while a download runs: the page follows them this often (only while visible). */
export const gatewayRefreshMs = 2_000;

export function useGateway() {
  return useQuery({
    queryKey: gatewayKeys.view,
    queryFn: ({ signal }) => apiRequest('/api/gateway', gatewayViewSchema, { signal }),
    // refetchIntervalInBackground stays false: a hidden tab does not poll.
    refetchInterval: gatewayRefreshMs,
  });
}

export function useGatewayTokens() {
  return useQuery({
    queryKey: gatewayKeys.tokens,
    queryFn: ({ signal }) => apiRequest('/api/gateway/tokens', tokenListSchema, { signal }),
    select: (list) => list.tokens,
  });
}

export function useCreateGatewayToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiRequest('/api/gateway/tokens', createdTokenSchema, { method: 'POST', body: { name } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: gatewayKeys.tokens }),
  });
}
