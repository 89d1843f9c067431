'use client';
// The TanStack Query client for the dashboard: one per browser tab, a fresh one per server render so
// no request's data leaks into another's. Pages poll (see each resource's queries.ts); mutations
// invalidate what they changed.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { z } from 'zod';
import { shouldRetry } from '@/components/api/client';

// zod compiles object parsers with `Function` when it may; the pages' CSP forbids eval, so its probe
// would show up as a CSP violation in every tab. Plain (jitless) parsing is fast enough for forms.
z.config({ jitless: true });

let browserClient: QueryClient | undefined;

function makeClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 2_000, retry: shouldRetry, refetchOnWindowFocus: true },
      mutations: { retry: false },
    },
  });
}

function queryClient(): QueryClient {
  if (typeof window === 'undefined') return makeClient();
  browserClient ??= makeClient();
  return browserClient;
}

export function QueryProvider({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient()}>{children}</QueryClientProvider>;
}
