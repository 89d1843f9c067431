'use client';
// Logging in, and the first-start password setup. A 401 here is an answer (wrong password), not a
// lost session, so these calls never bounce to the login page.
import { useMutation, useQuery } from '@tanstack/react-query';
import { apiRequest } from '@/components/api/client';

export interface AuthStatus {
  /** false on first start, before an admin password exists */
  passwordConfigured: boolean;
  authenticated: boolean;
  /** `environment` when ADMIN_PASSWORD sets it: it is changed there, not here */
  passwordSource?: string;
}

function toStatus(raw: unknown): AuthStatus {
  const body = (raw ?? {}) as Record<string, unknown>;
  const configured = body.passwordConfigured ?? body.configured ?? (body.setupRequired === undefined ? true : !body.setupRequired);
  const source = typeof body.passwordSource === 'string' ? { passwordSource: body.passwordSource } : {};
  return { passwordConfigured: configured !== false, authenticated: body.authenticated === true, ...source };
}

export const authKeys = { status: ['auth', 'status'] as const };

export function useAuthStatus() {
  return useQuery({
    queryKey: authKeys.status,
    queryFn: async ({ signal }) => toStatus(await apiRequest<unknown>('/api/auth/status', { signal, redirectOn401: false })),
    retry: false,
  });
}

export function useLogin() {
  return useMutation({ mutationFn: (password: string) => apiRequest<unknown>('/api/auth/login', { method: 'POST', body: { password }, redirectOn401: false }) });
}

export function useSetupPassword() {
  return useMutation({ mutationFn: (password: string) => apiRequest<unknown>('/api/auth/setup', { method: 'POST', body: { password }, redirectOn401: false }) });
}
