'use client';
// API tokens (GET|POST /api/tokens, DELETE /api/tokens/{id}), gateway tokens (the same under
// /api/gateway/tokens) and the admin password change. A new token's secret comes back once, from
// the POST, and is never listed again.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createdTokenSchema, passwordChangedSchema, revokedTokenSchema, tokenListSchema } from '@/lib/api/auth';
import { apiRequest } from '@/components/api/client';
import { settingsKeys } from '@/components/query-keys';

export type { ApiToken, CreatedToken } from '@/lib/api/auth';

/** The two kinds of token: API tokens (discovery, metrics) and gateway tokens (the crawlers' proxy password). */
export type TokenKind = 'api' | 'gateway';

const tokensPath: Record<TokenKind, string> = { api: '/api/tokens', gateway: '/api/gateway/tokens' };

const tokensKey: Record<TokenKind, readonly string[]> = { api: settingsKeys.tokens, gateway: settingsKeys.gatewayTokens };

export function useTokens(kind: TokenKind = 'api') {
  return useQuery({
    queryKey: tokensKey[kind],
    queryFn: ({ signal }) => apiRequest(tokensPath[kind], tokenListSchema, { signal }),
    select: (list) => list.tokens,
  });
}

export function useCreateToken(kind: TokenKind = 'api') {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiRequest(tokensPath[kind], createdTokenSchema, { method: 'POST', body: { name } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: tokensKey[kind] }),
  });
}

export function useRevokeToken(kind: TokenKind = 'api') {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest(`${tokensPath[kind]}/${encodeURIComponent(id)}`, revokedTokenSchema, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: tokensKey[kind] }),
  });
}

export function useChangePassword() {
  const queryClient = useQueryClient();
  return useMutation({
    // A wrong current password is ERR_INVALID_CREDENTIALS: an answer to show, not a lost session.
    mutationFn: (input: { currentPassword: string; newPassword: string; revokeTokens: boolean }) =>
      apiRequest('/api/auth/password', passwordChangedSchema, { method: 'POST', body: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: settingsKeys.tokens }),
  });
}
