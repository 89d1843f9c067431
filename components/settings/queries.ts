'use client';
// API tokens (GET|POST /api/tokens, DELETE /api/tokens/{id}) and the admin password change. A new
// token's secret comes back once, from the POST, and is never listed again.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createdTokenSchema, passwordChangedSchema, revokedTokenSchema, tokenListSchema } from '@/lib/api/auth';
import { apiRequest } from '@/components/api/client';

export type { ApiToken, CreatedToken } from '@/lib/api/auth';

export const settingsKeys = { tokens: ['tokens'] as const };

export function useTokens() {
  return useQuery({
    queryKey: settingsKeys.tokens,
    queryFn: ({ signal }) => apiRequest('/api/tokens', tokenListSchema, { signal }),
    select: (list) => list.tokens,
  });
}

export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiRequest('/api/tokens', createdTokenSchema, { method: 'POST', body: { name } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.tokens }),
  });
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest(`/api/tokens/${encodeURIComponent(id)}`, revokedTokenSchema, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.tokens }),
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
