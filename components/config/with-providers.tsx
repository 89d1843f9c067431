'use client';
// What a create form shows until it has the providers config: a skeleton while it loads, the
// error with a retry, or, when no provider is configured, an empty state pointing to the hosts
// page; then the form itself, given the configured providers.
import type { ReactNode } from 'react';
import { type ConfigProvider, useConfig } from '@/components/config/queries';
import { LinkButton } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { SkeletonRows } from '@/components/ui/skeleton';

export function WithProviders({ whyHosts, children }: { whyHosts: string; children: (providers: ConfigProvider[]) => ReactNode }) {
  const config = useConfig();
  if (config.isPending) return <SkeletonRows rows={6} label="the providers config" />;
  if (config.isError) return <ErrorPanel title="Could not load the providers config" error={config.error} onRetry={() => void config.refetch()} />;
  if (config.data.providers.length === 0) {
    return (
      <EmptyState
        title="No provider is configured"
        action={
          <LinkButton href="/hosts" tone="primary">
            See how to add a host
          </LinkButton>
        }
      >
        {whyHosts}
      </EmptyState>
    );
  }
  return children(config.data.providers);
}
