'use client';
// ProxySets through the API: the list, one set, its events, create, edit (PUT) with its plan, scale,
// pause/resume, replace members, delete, and the create form's preview of where members would go.
// The live feed's `proxyset` message invalidates everything under ['proxysets'] (live-cache.ts); the
// members are the Proxies list (kept live by `proxy` messages) filtered by the set's label.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { proxyEventListSchema } from '@/lib/api/proxies';
import type { ProxySetCreateInput, ProxySetUpdateInput } from '@/lib/api/proxyset-spec';
import { proxySetListSchema, proxySetPlanSchema, proxySetPreviewSchema, proxySetViewSchema } from '@/lib/api/proxysets';
import { apiRequest } from '@/components/api/client';
import { usePollInterval } from '@/components/app/live-status';
import { proxyKeys, proxySetKeys } from '@/components/query-keys';

const segment = encodeURIComponent;

const pollMs = 5_000;

export function useProxySets() {
  return useQuery({
    queryKey: proxySetKeys.list,
    queryFn: ({ signal }) => apiRequest('/api/proxysets', proxySetListSchema, { signal }),
    select: (list) => list.proxysets,
    refetchInterval: usePollInterval(pollMs),
  });
}

export function useProxySet(name: string) {
  return useQuery({
    queryKey: proxySetKeys.detail(name),
    queryFn: ({ signal }) => apiRequest(`/api/proxysets/${segment(name)}`, proxySetViewSchema, { signal }),
    refetchInterval: usePollInterval(pollMs),
  });
}

export function useProxySetEvents(name: string) {
  return useQuery({
    queryKey: proxySetKeys.events(name),
    queryFn: ({ signal }) => apiRequest(`/api/proxysets/${segment(name)}/events`, proxyEventListSchema, { signal }),
    select: (list) => list.events,
    refetchInterval: usePollInterval(pollMs),
  });
}

/** Where the members of `input` would go now; asked again whenever the form's set changes. */
export function useProxySetPreview(input: ProxySetCreateInput | undefined) {
  return useQuery({
    queryKey: proxySetKeys.preview(input),
    queryFn: ({ signal }) => apiRequest('/api/proxysets/preview', proxySetPreviewSchema, { method: 'POST', body: input, signal }),
    enabled: input !== undefined,
    placeholderData: (previous) => previous,
    refetchInterval: pollMs,
  });
}

/** What a PUT of `input` would do (nothing, settings, relabel, a rolling replacement of N). */
export function useProxySetPlan(name: string, input: ProxySetUpdateInput | undefined) {
  return useQuery({
    queryKey: proxySetKeys.plan(name, input),
    queryFn: ({ signal }) => apiRequest(`/api/proxysets/${segment(name)}/plan`, proxySetPlanSchema, { method: 'POST', body: input, signal }),
    enabled: input !== undefined,
    placeholderData: (previous) => previous,
  });
}

/** A mutation on one set whose answer is the set as stored now. */
function useSetMutation<T>(request: (input: T) => Promise<ReturnType<typeof proxySetViewSchema.parse>>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: (set) => {
      queryClient.setQueryData(proxySetKeys.detail(set.name), set);
      void queryClient.invalidateQueries({ queryKey: proxySetKeys.list });
      void queryClient.invalidateQueries({ queryKey: proxySetKeys.events(set.name) });
      void queryClient.invalidateQueries({ queryKey: proxyKeys.list });
    },
  });
}

export const useCreateProxySet = () =>
  useSetMutation((input: ProxySetCreateInput) => apiRequest('/api/proxysets', proxySetViewSchema, { method: 'POST', body: input }));

export const useUpdateProxySet = (name: string) =>
  useSetMutation((input: ProxySetUpdateInput) => apiRequest(`/api/proxysets/${segment(name)}`, proxySetViewSchema, { method: 'PUT', body: input }));

export const useScaleProxySet = (name: string) =>
  useSetMutation((replicas: number) => apiRequest(`/api/proxysets/${segment(name)}/scale`, proxySetViewSchema, { method: 'POST', body: { replicas } }));

export const usePauseProxySet = (name: string) =>
  useSetMutation((paused: boolean) => apiRequest(`/api/proxysets/${segment(name)}/${paused ? 'pause' : 'resume'}`, proxySetViewSchema, { method: 'POST' }));

export const useDeleteProxySet = (name: string) =>
  useSetMutation(() => apiRequest(`/api/proxysets/${segment(name)}`, proxySetViewSchema, { method: 'DELETE' }));

/** Replace members of one set now (POST .../replace); `set` is given per call (bulk spans sets). */
export const useReplaceMembers = () =>
  useSetMutation(({ set, members }: { set: string; members: string[] }) =>
    apiRequest(`/api/proxysets/${segment(set)}/replace`, proxySetViewSchema, { method: 'POST', body: { members } }),
  );
