'use client';
// Logging in, and the first-start password setup. A wrong password is ERR_INVALID_CREDENTIALS,
// an answer to show on the form (the client only leaves the page for ERR_UNAUTHENTICATED).
import { useMutation, useQuery } from '@tanstack/react-query';
import { authStatusSchema, passwordSetSchema, sessionSchema } from '@/lib/api/auth';
import { apiRequest } from '@/components/api/client';
import { authKeys } from '@/components/query-keys';

export function useAuthStatus() {
  return useQuery({
    queryKey: authKeys.status,
    queryFn: ({ signal }) => apiRequest('/api/auth/status', authStatusSchema, { signal }),
    retry: false,
  });
}

export function useLogin() {
  return useMutation({ mutationFn: (password: string) => apiRequest('/api/auth/login', sessionSchema, { method: 'POST', body: { password } }) });
}

export function useSetupPassword() {
  return useMutation({
    mutationFn: (input: { password: string; setupCode: string }) => apiRequest('/api/auth/setup', passwordSetSchema, { method: 'POST', body: input }),
  });
}
