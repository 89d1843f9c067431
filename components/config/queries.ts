'use client';
// GET /api/config: the validated providers config summary (the catalogue of hosts, images and
// machine types of each provider that has one) and the last reload error.
import { useQuery } from '@tanstack/react-query';
import { configSummarySchema } from '@/lib/api/config';
import { apiRequest } from '@/components/api/client';
import { configKeys } from '@/components/query-keys';

export type { Catalogue, ConfigProvider, ConfigSummary } from '@/lib/api/config';

export function useConfig() {
  return useQuery({
    queryKey: configKeys.summary,
    queryFn: ({ signal }) => apiRequest('/api/config', configSummarySchema, { signal }),
    refetchInterval: 15_000,
  });
}
