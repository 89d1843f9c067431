'use client';
// Proxies through the API: the list (GET /api/proxies), one Proxy (GET /api/proxies/{name}), its
// events, the live download of its base image, create (POST) and delete (DELETE). Lists poll;
// create and delete invalidate what they changed. Responses are unwrapped here only.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ProxyCreateInput, ProxyEventView, ProxyView } from '@/lib/proxy-spec';
import { apiRequest, getJson } from '@/components/api/client';
import { hostKeys } from '@/components/hosts/queries';

export interface DownloadProgress {
  host: string;
  volume: string;
  urlHost?: string;
  totalBytes: number;
  doneBytes: number;
  bytesPerSecond: number;
  etaSeconds: number | null;
}

type Loose = Record<string, unknown>;

/** A bare value, or the value under `key` of a wrapping object. */
function unwrap<T>(raw: unknown, key: string): T {
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && key in (raw as Loose)) return (raw as Loose)[key] as T;
  return raw as T;
}

const segment = encodeURIComponent;

export const proxyKeys = {
  all: ['proxies'] as const,
  list: ['proxies', 'list'] as const,
  detail: (name: string) => ['proxies', 'detail', name] as const,
  events: (name: string) => ['proxies', 'events', name] as const,
  download: (name: string) => ['proxies', 'download', name] as const,
};

export const pollMs = 5_000;

export function useProxies() {
  return useQuery({
    queryKey: proxyKeys.list,
    queryFn: async (context) => unwrap<ProxyView[]>(await getJson<unknown>('/api/proxies')(context), 'proxies') ?? [],
    refetchInterval: pollMs,
  });
}

export function useProxy(name: string) {
  return useQuery({
    queryKey: proxyKeys.detail(name),
    queryFn: async (context) => unwrap<ProxyView>(await getJson<unknown>(`/api/proxies/${segment(name)}`)(context), 'proxy'),
    refetchInterval: pollMs,
  });
}

export function useProxyEvents(name: string) {
  return useQuery({
    queryKey: proxyKeys.events(name),
    queryFn: async (context) => unwrap<ProxyEventView[]>(await getJson<unknown>(`/api/proxies/${segment(name)}/events`)(context), 'events') ?? [],
    refetchInterval: pollMs,
  });
}

/** Polled fast while a download runs, slowly otherwise. */
export function useDownloadProgress(name: string, enabled: boolean) {
  return useQuery({
    queryKey: proxyKeys.download(name),
    queryFn: async (context) => unwrap<DownloadProgress | null>(await getJson<unknown>(`/api/proxies/${segment(name)}/download`)(context), 'download') ?? null,
    enabled,
    refetchInterval: (query) => (query.state.data ? 1_000 : pollMs),
  });
}

export function useCreateProxy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ProxyCreateInput) => apiRequest<unknown>('/api/proxies', { method: 'POST', body: input }).then((raw) => unwrap<ProxyView>(raw, 'proxy')),
    onSuccess: (proxy) => {
      if (proxy?.name) queryClient.setQueryData(proxyKeys.detail(proxy.name), proxy);
      return queryClient.invalidateQueries({ queryKey: proxyKeys.list });
    },
  });
}

export function useDeleteProxy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiRequest<unknown>(`/api/proxies/${segment(name)}`, { method: 'DELETE' }),
    // The Proxy's page, the list, and the host listings (its domain goes away) are all stale now.
    onSettled: () =>
      Promise.all([queryClient.invalidateQueries({ queryKey: proxyKeys.all }), queryClient.invalidateQueries({ queryKey: hostKeys.providers })]),
  });
}
