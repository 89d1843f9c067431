'use client';
// The Hosts page body: every configured host of every provider with its latest check and history,
// or the prerequisites checklist when nothing is configured.
import { useConfig } from '@/components/config/queries';
import { Badge } from '@/components/ui/badge';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Panel } from '@/components/ui/panel';
import { SkeletonCards } from '@/components/ui/skeleton';
import { HostCard } from './host-card';
import { Prerequisites } from './prerequisites';
import { type ProviderSummary, useHealthHistory, useProviders } from './queries';

const historyWindowMs = 6 * 3_600_000;

function ProviderHosts({ provider }: { provider: ProviderSummary }) {
  const history = useHealthHistory(provider.name, historyWindowMs);
  return (
    <Panel
      title={
        <>
          {provider.name} <span className="text-sm font-normal text-slate-600">({provider.type})</span>
        </>
      }
      actions={provider.available ? null : <Badge tone="error">Unavailable</Badge>}
    >
      {provider.available ? null : <p className="mb-3 text-sm text-red-800">{provider.reason ?? 'This provider could not be started.'}</p>}
      {provider.targets.length === 0 ? (
        <p className="text-sm text-slate-600">No check has finished yet; results appear within the check interval.</p>
      ) : (
        <div className="grid gap-4">
          {provider.targets.map((target) => (
            <HostCard key={target.name} provider={provider.name} target={target} samples={history.data?.filter((sample) => sample.target === target.name) ?? []} />
          ))}
        </div>
      )}
    </Panel>
  );
}

export function HostsOverview() {
  const providers = useProviders();
  const config = useConfig();
  if (providers.isPending) return <SkeletonCards cards={2} label="hosts" />;
  if (providers.isError) return <ErrorPanel title="Could not load the hosts" error={providers.error} onRetry={() => void providers.refetch()} />;
  if (providers.data.length === 0) {
    return (
      <Panel title="Get started">
        <Prerequisites configPath={config.data?.source} />
      </Panel>
    );
  }
  return (
    <div className="space-y-6">
      {providers.data.map((provider) => (
        <ProviderHosts key={provider.name} provider={provider} />
      ))}
    </div>
  );
}
