'use client';
// The Hosts page body: every configured host of every provider with its latest check and history,
// or the prerequisites checklist when nothing is configured.
import { useState } from 'react';
import { type ConfigSummary, useConfig } from '@/components/config/queries';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/badge';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Panel } from '@/components/ui/panel';
import { SkeletonCards } from '@/components/ui/skeleton';
import { AddHostWizard } from './add-host-wizard';
import { HostCard } from './host-card';
import { Prerequisites } from './prerequisites';
import { type ProviderSummary, useHealthHistory, useProviders } from './queries';
import { RemoveHostButton } from './remove-host-button';
import { EditHostButton } from './edit-host-button';

const historyWindowMs = 6 * 3_600_000;

/** `setup`: the provider's hosts are edited and removed here (its capabilities in the config summary). */
function ProviderHosts({ provider, setup }: { provider: ProviderSummary; setup: boolean }) {
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
            <HostCard
              key={target.name}
              provider={provider.name}
              target={target}
              samples={history.data?.filter((sample) => sample.target === target.name) ?? []}
              actions={
                setup ? (
                  <>
                    <EditHostButton provider={provider.name} host={target.name} />
                    <RemoveHostButton provider={provider.name} host={target.name} />
                  </>
                ) : null
              }
            />
          ))}
        </div>
      )}
    </Panel>
  );
}

function ProviderList({ providers, config }: { providers: ProviderSummary[]; config: ConfigSummary | undefined }) {
  if (providers.length === 0) {
    return (
      <Panel title="Get started">
        <Prerequisites configPath={config?.source} />
      </Panel>
    );
  }
  return (
    <>
      {providers.map((provider) => (
        <ProviderHosts
          key={provider.name}
          provider={provider}
          setup={config?.providers.find((entry) => entry.name === provider.name)?.capabilities.setup ?? false}
        />
      ))}
    </>
  );
}

export function HostsOverview() {
  const providers = useProviders();
  const config = useConfig();
  const [adding, setAdding] = useState(false);
  if (providers.isPending) return <SkeletonCards cards={2} label="hosts" />;
  if (providers.isError) return <ErrorPanel title="Could not load the hosts" error={providers.error} onRetry={() => void providers.refetch()} />;
  return (
    <div className="space-y-6">
      {adding ? (
        <AddHostWizard onDone={() => setAdding(false)} />
      ) : (
        <div>
          <Button tone="primary" onClick={() => setAdding(true)}>
            Add host
          </Button>
        </div>
      )}
      <ProviderList providers={providers.data} config={config.data} />
    </div>
  );
}
