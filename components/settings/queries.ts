'use client';
// API tokens (GET|POST /api/tokens, DELETE /api/tokens/{id}) and the admin password change. A new
// token's secret comes back once, from the POST, and is never listed again.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, getJson } from '@/components/api/client';

export interface ApiToken {
  id: string;
  name: string;
  createdAt?: string;
  lastUsedAt?: string;
  /** the first characters of the token, to tell them apart */
  prefix?: string;
}

export interface CreatedToken extends ApiToken {
  /** the secret, shown once */
  token: string;
}

type Loose = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

function toToken(raw: Loose): ApiToken {
  return { id: text(raw.id) ?? '', name: text(raw.name) ?? text(raw.label) ?? '', createdAt: text(raw.createdAt), lastUsedAt: text(raw.lastUsedAt), prefix: text(raw.prefix) };
}

function toTokens(raw: unknown): ApiToken[] {
  const items = Array.isArray(raw) ? raw : Array.isArray((raw as Loose | undefined)?.tokens) ? ((raw as Loose).tokens as unknown[]) : [];
  return items.filter((item): item is Loose => !!item && typeof item === 'object').map(toToken);
}

function toCreated(raw: unknown): CreatedToken {
  const body = (raw ?? {}) as Loose;
  const inner = (body.token && typeof body.token === 'object' ? body.token : body) as Loose;
  return { ...toToken(inner), token: text(body.secret) ?? text(inner.secret) ?? text(body.token) ?? text(inner.token) ?? '' };
}

export const settingsKeys = { tokens: ['tokens'] as const };

export function useTokens() {
  return useQuery({ queryKey: settingsKeys.tokens, queryFn: async (context) => toTokens(await getJson<unknown>('/api/tokens')(context)) });
}

export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => toCreated(await apiRequest<unknown>('/api/tokens', { method: 'POST', body: { name } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.tokens }),
  });
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest<unknown>(`/api/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.tokens }),
  });
}

export function useChangePassword() {
  return useMutation({
    // A wrong current password is a 401 too: an answer to show, not a lost session.
    mutationFn: (input: { currentPassword: string; newPassword: string }) => apiRequest<unknown>('/api/auth/password', { method: 'POST', body: input, redirectOn401: false }),
  });
}
