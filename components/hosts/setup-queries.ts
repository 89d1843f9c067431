'use client';
// The Add host wizard's calls (POST /api/host-setup/*), the saves (POST /api/providers/{provider}/hosts,
// PUT and DELETE /api/providers/{provider}/hosts/{host}) and the server's SSH identity
// (GET|POST /api/ssh-identity). A save refreshes the providers and the config: the new host
// shows up with its first check.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiRequest } from '@/components/api/client';
import { identityKeys } from '@/components/query-keys';
import {
  addHostSchema,
  authenticateStepSchema,
  capabilitiesStepSchema,
  checkStepSchema,
  editHostSchema,
  hostKeyStepSchema,
  identityListSchema,
  identitySchema,
  libvirtStepSchema,
  resourcesStepSchema,
  savedHostsSchema,
  trustStepSchema,
  type Candidate,
} from '@/lib/api/host-setup';

export type { Candidate, CapabilitiesStep, HostKeyStep, Identity, ResourcesStep, StepFailure } from '@/lib/api/host-setup';

const segment = encodeURIComponent;

export const stepSchemas = {
  authenticate: authenticateStepSchema,
  libvirt: libvirtStepSchema,
  resources: resourcesStepSchema,
  capabilities: capabilitiesStepSchema,
  check: checkStepSchema,
} as const;
export type StepName = keyof typeof stepSchemas;
export type StepAnswer<S extends StepName> = z.output<(typeof stepSchemas)[S]>;

export function runStep<S extends StepName>(step: S, candidate: Candidate): Promise<StepAnswer<S>> {
  return apiRequest(`/api/host-setup/${step}`, stepSchemas[step], { method: 'POST', body: candidate }) as Promise<StepAnswer<S>>;
}

export const fetchHostKey = (candidate: Pick<Candidate, 'provider' | 'newEntry' | 'address'>) =>
  apiRequest('/api/host-setup/host-key', hostKeyStepSchema, { method: 'POST', body: candidate });

export const trustHostKey = (input: Pick<Candidate, 'provider' | 'newEntry' | 'address'> & { fingerprint: string }) =>
  apiRequest('/api/host-setup/host-key/trust', trustStepSchema, { method: 'POST', body: input });

function useRefreshHosts() {
  const queryClient = useQueryClient();
  return () => Promise.all([queryClient.invalidateQueries({ queryKey: ['providers'] }), queryClient.invalidateQueries({ queryKey: ['config'] })]);
}

export function useAddHost() {
  const refresh = useRefreshHosts();
  return useMutation({
    mutationFn: ({ provider, host }: { provider: string; host: z.input<typeof addHostSchema> }) =>
      apiRequest(`/api/providers/${segment(provider)}/hosts`, savedHostsSchema, { method: 'POST', body: host }),
    onSuccess: refresh,
  });
}

export function useUpdateHost() {
  const refresh = useRefreshHosts();
  return useMutation({
    mutationFn: ({ provider, host, fields }: { provider: string; host: string; fields: z.input<typeof editHostSchema> }) =>
      apiRequest(`/api/providers/${segment(provider)}/hosts/${segment(host)}`, savedHostsSchema, { method: 'PUT', body: fields }),
    onSuccess: refresh,
  });
}

export function useRemoveHost() {
  const refresh = useRefreshHosts();
  return useMutation({
    mutationFn: ({ provider, host }: { provider: string; host: string }) =>
      apiRequest(`/api/providers/${segment(provider)}/hosts/${segment(host)}`, savedHostsSchema, { method: 'DELETE' }),
    onSuccess: refresh,
  });
}

export function useIdentities() {
  return useQuery({
    queryKey: identityKeys.all,
    queryFn: ({ signal }) => apiRequest('/api/ssh-identity', identityListSchema, { signal }),
    select: (list) => list.identities,
  });
}

export function useGenerateIdentity() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (provider: string | undefined) => apiRequest('/api/ssh-identity', identitySchema, { method: 'POST', body: provider ? { provider } : {} }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: identityKeys.all }),
  });
}
