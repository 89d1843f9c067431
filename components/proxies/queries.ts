'use client';
// Proxies through the API: the list (GET /api/proxies), one Proxy (GET /api/proxies/{name}), its
// events, its probe history, the live download of its base image, create (POST) and delete
// (DELETE), edit (PUT). What the live stream carries polls only while it is down (live-status.ts); create and
// delete invalidate what they changed.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { diagnosisSchema } from '@/lib/api/diagnosis';
import { placementPreviewSchema } from '@/lib/api/placement';
import { probeHistorySchema, proxyDownloadSchema, proxyEventListSchema, proxyListSchema, proxyViewSchema } from '@/lib/api/proxies';
import type { ProxyCreateInput, ProxyUpdateInput } from '@/lib/proxy-spec';
import { apiRequest } from '@/components/api/client';
import { usePollInterval } from '@/components/app/live-status';
import { hostKeys, proxyKeys } from '@/components/query-keys';

export type { DownloadProgress, ProbeSample } from '@/lib/api/proxies';

const segment = encodeURIComponent;

export const pollMs = 5_000;

export function useProxies() {
  return useQuery({
    queryKey: proxyKeys.list,
    queryFn: ({ signal }) => apiRequest('/api/proxies', proxyListSchema, { signal }),
    select: (list) => list.proxies,
    refetchInterval: usePollInterval(pollMs),
  });
}

export function useProxy(name: string) {
  return useQuery({
    queryKey: proxyKeys.detail(name),
    queryFn: ({ signal }) => apiRequest(`/api/proxies/${segment(name)}`, proxyViewSchema, { signal }),
    refetchInterval: usePollInterval(pollMs),
  });
}

/**
 * The diagnosis checklist, run when asked. A mutation, not a query: it dials the host, so neither
 * the live feed's invalidations nor a refocus may run it again behind the admin's back.
 */
export function useDiagnosisRun(name: string) {
  return useMutation({ mutationFn: () => apiRequest(`/api/proxies/${segment(name)}/diagnosis`, diagnosisSchema) });
}

/** The host automatic placement would choose now for a Proxy of `machineType` on `provider`. */
export function usePlacementPreview({ provider, machineType, enabled }: { provider: string; machineType: string; enabled: boolean }) {
  return useQuery({
    queryKey: proxyKeys.placement(provider, machineType),
    queryFn: ({ signal }) =>
      apiRequest(`/api/providers/${segment(provider)}/placement?machineType=${encodeURIComponent(machineType)}`, placementPreviewSchema, { signal }),
    enabled: enabled && provider !== '' && machineType !== '',
    refetchInterval: pollMs,
  });
}

export function useProxyEvents(name: string) {
  return useQuery({
    queryKey: proxyKeys.events(name),
    queryFn: ({ signal }) => apiRequest(`/api/proxies/${segment(name)}/events`, proxyEventListSchema, { signal }),
    select: (list) => list.events,
    refetchInterval: usePollInterval(pollMs),
  });
}

/** The probes of the last `windowMs` as the server stored them, counted back from each fetch. */
export function useProbeHistory(name: string, windowMs: number) {
  return useQuery({
    queryKey: proxyKeys.probes(name, windowMs),
    queryFn: ({ signal }) => {
      const since = new Date(Date.now() - windowMs).toISOString();
      return apiRequest(`/api/proxies/${segment(name)}/probes?since=${encodeURIComponent(since)}`, probeHistorySchema, { signal });
    },
    select: (history) => history.samples,
    refetchInterval: usePollInterval(pollMs),
    placeholderData: (previous) => previous,
  });
}

/** Polled fast while a download runs, slowly otherwise. */
export function useDownloadProgress(name: string, enabled: boolean) {
  return useQuery({
    queryKey: proxyKeys.download(name),
    queryFn: ({ signal }) => apiRequest(`/api/proxies/${segment(name)}/download`, proxyDownloadSchema, { signal }),
    select: (answer) => answer.download,
    enabled,
    refetchInterval: (query) => (query.state.data?.download ? 1_000 : pollMs),
  });
}

export function useCreateProxy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ProxyCreateInput) => apiRequest('/api/proxies', proxyViewSchema, { method: 'POST', body: input }),
    onSuccess: (proxy) => {
      queryClient.setQueryData(proxyKeys.detail(proxy.name), proxy);
      return queryClient.invalidateQueries({ queryKey: proxyKeys.list });
    },
  });
}

export function useDeleteProxy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => apiRequest(`/api/proxies/${segment(name)}`, proxyViewSchema, { method: 'DELETE' }),
    // The Proxy's page, the list, and the host listings (its domain goes away) are all stale now;
    // refetched in the background, so leaving the page does not wait for the host listings.
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: proxyKeys.all });
      void queryClient.invalidateQueries({ queryKey: hostKeys.providers });
    },
  });
}

/** PUT /api/proxies/{name}: the whole spec again; the answer is the Proxy as stored now. */
export function useUpdateProxy(name: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ProxyUpdateInput) => apiRequest(`/api/proxies/${segment(name)}`, proxyViewSchema, { method: 'PUT', body: input }),
    onSuccess: (proxy) => {
      queryClient.setQueryData(proxyKeys.detail(proxy.name), proxy);
      void queryClient.invalidateQueries({ queryKey: proxyKeys.list });
      void queryClient.invalidateQueries({ queryKey: proxyKeys.events(proxy.name) });
    },
  });
}
