'use client';
// Evicting a cached base image: DELETE /api/providers/{provider}/hosts/{host}/images/{volume}.
// The server removes the marker first, then the base, and answers ERR_IMAGE_IN_USE (409) while a
// domain on the host backs onto it. The host's listing is refreshed afterwards either way.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { evictOutcomeSchema } from '@/lib/api/providers';
import { apiRequest } from '@/components/api/client';
import { hostKeys } from '@/components/query-keys';

const segment = encodeURIComponent;

export function useEvictImage(provider: string, host: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (volume: string) =>
      apiRequest(`/api/providers/${segment(provider)}/hosts/${segment(host)}/images/${segment(volume)}`, evictOutcomeSchema, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: hostKeys.inventory(provider, host) }),
  });
}
