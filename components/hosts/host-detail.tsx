'use client';
// The host page body: its latest check with history, then what lives on it (pools, cached images
// and the downloads running, domains), each panel loading on its own.
import { DownloadsList } from '@/components/images/downloads-list';
import { ImagesTable } from '@/components/images/images-table';
import { useDomainActivities } from '@/components/stats/domain-activity';
import { HostStatsPanel } from '@/components/stats/host-stats-panel';
import { ErrorPanel } from '@/components/ui/error-panel';
import { Panel } from '@/components/ui/panel';
import { SkeletonCards, SkeletonRows } from '@/components/ui/skeleton';
import { DomainsTable } from './domains-table';
import { HostCard } from './host-card';
import { PoolsTable } from './pools-table';
import { useHealthHistory, useHostInventory, useProviders } from './queries';

const historyWindowMs = 24 * 3_600_000;

function HostHealthPanel({ provider, host }: { provider: string; host: string }) {
  const providers = useProviders();
  const history = useHealthHistory(provider, historyWindowMs);
  if (providers.isPending) return <SkeletonCards cards={1} label="host health" />;
  if (providers.isError) return <ErrorPanel title="Could not load the host's health" error={providers.error} onRetry={() => void providers.refetch()} />;
  const target = providers.data.find((entry) => entry.name === provider)?.targets.find((entry) => entry.name === host);
  if (!target)
    return (
      <ErrorPanel
        title="Unknown host"
        error={new Error(`${host} is not a host of provider ${provider} in the running config, or it has not been checked yet.`)}
      />
    );
  return <HostCard provider={provider} target={target} samples={history.data?.filter((sample) => sample.target === host) ?? []} />;
}

export function HostDetail({ provider, host }: { provider: string; host: string }) {
  const inventory = useHostInventory(provider, host);
  const activities = useDomainActivities(provider, host);
  const body = (render: (data: NonNullable<typeof inventory.data>) => React.ReactNode, label: string) => {
    if (inventory.isPending) return <SkeletonRows rows={3} label={label} />;
    if (inventory.isError) return <ErrorPanel title={`Could not list the ${label}`} error={inventory.error} onRetry={() => void inventory.refetch()} />;
    return render(inventory.data);
  };
  return (
    <div className="space-y-6">
      <HostHealthPanel provider={provider} host={host} />
      <HostStatsPanel provider={provider} host={host} />
      <Panel title="Storage pools">
        {body(
          (data) => (
            <PoolsTable pools={data.pools} />
          ),
          'storage pools',
        )}
      </Panel>
      <Panel title="Cached base images">
        {body(
          (data) => (
            <>
              <DownloadsList downloads={data.downloads} />
              <ImagesTable provider={provider} host={host} pool={data.pool} images={data.images} />
            </>
          ),
          'cached images',
        )}
      </Panel>
      <Panel title="Domains">
        {body(
          (data) => (
            <DomainsTable domains={data.domains} activities={activities} />
          ),
          'domains',
        )}
      </Panel>
    </div>
  );
}
