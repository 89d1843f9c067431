'use client';
// The overview: hosts up and down with reasons, Proxies by phase, pool free space across hosts,
// recent condition changes, and the providers config's reload error if the last edit was refused.
import Link from 'next/link';
import { proxyPhases } from '@/lib/proxy-spec';
import { useConfig } from '@/components/config/queries';
import { hostHref } from '@/components/hosts/host-card';
import { HealthBadge } from '@/components/hosts/health-reason';
import { Prerequisites } from '@/components/hosts/prerequisites';
import { useProviders } from '@/components/hosts/queries';
import { PhaseBadge } from '@/components/proxies/phase-badge';
import { useProxies } from '@/components/proxies/queries';
import { LinkButton } from '@/components/ui/button';
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatGiB, formatTime, gibOf } from '@/components/ui/format';
import { Panel } from '@/components/ui/panel';
import { SkeletonRows } from '@/components/ui/skeleton';
import { RecentChanges } from './recent-changes';

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm" data-testid={testId}>
      <p className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</p>
      <p className="mt-1 text-2xl font-semibold text-slate-900">{value}</p>
    </div>
  );
}

function ConfigError() {
  const config = useConfig();
  const lastError = config.data?.lastError;
  if (!lastError) return null;
  return (
    <div role="alert" className="rounded-lg border border-red-300 bg-red-50 p-4 text-sm text-red-950">
      <p className="font-semibold">The last edit of the providers config was refused ({formatTime(lastError.at)}); the previous config is still running.</p>
      <ul className="mt-2 list-disc space-y-1 pl-5 font-mono text-xs">
        {lastError.issues.map((issue) => (
          <li key={issue}>{issue}</li>
        ))}
      </ul>
    </div>
  );
}

function HostsPanel() {
  const providers = useProviders();
  if (providers.isPending) return <SkeletonRows rows={3} label="hosts" />;
  if (providers.isError) return <ErrorPanel title="Could not load the hosts" error={providers.error} onRetry={() => void providers.refetch()} />;
  if (providers.data.length === 0)
    return (
      <p className="text-sm text-slate-600">
        No hosts are configured yet; see <em>Get started</em> above.
      </p>
    );
  const hosts = providers.data.flatMap((provider) => provider.targets.map((target) => ({ provider: provider.name, target })));
  return (
    <ul className="divide-y divide-slate-100">
      {hosts.map(({ provider, target }) => (
        <li key={`${provider}/${target.name}`} className="flex flex-wrap items-center justify-between gap-2 py-2">
          <Link href={hostHref(provider, target.name)} className="font-medium text-blue-800 underline-offset-2 hover:underline">
            {target.name} <span className="text-xs font-normal text-slate-600">{provider}</span>
          </Link>
          <span className="flex items-center gap-3 text-sm text-slate-700">
            {formatGiB(gibOf(target.pool?.availableBytes))} free
            <HealthBadge reason={target.reason} details={target.details} />
          </span>
        </li>
      ))}
    </ul>
  );
}

export function FleetSummary() {
  const providers = useProviders();
  const proxies = useProxies();
  const config = useConfig();
  const targets = providers.data?.flatMap((provider) => provider.targets) ?? [];
  const up = targets.filter((target) => target.ready).length;
  const freeGiB = targets.reduce((sum, target) => sum + (gibOf(target.pool?.availableBytes) ?? 0), 0);
  const byPhase = new Map(proxyPhases.map((phase) => [phase, (proxies.data ?? []).filter((proxy) => proxy.status.phase === phase).length]));
  return (
    <div className="space-y-6">
      <ConfigError />
      {providers.data?.length === 0 ? (
        <Panel title="Get started">
          <Prerequisites configPath={config.data?.source} />
        </Panel>
      ) : null}
      <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
        <Stat label="Hosts up" value={providers.data ? `${up} / ${targets.length}` : '…'} testId="stat-hosts" />
        <Stat label="Pool free space" value={providers.data ? formatGiB(freeGiB) : '…'} />
        <Stat label="Proxies" value={proxies.data ? String(proxies.data.length) : '…'} />
        <Stat label="Ready" value={proxies.data ? String(byPhase.get('Ready') ?? 0) : '…'} />
      </div>
      <div className="grid gap-6 lg:grid-cols-2">
        <Panel title="Hosts" actions={<LinkButton href="/hosts">All hosts</LinkButton>}>
          <HostsPanel />
        </Panel>
        <Panel
          title="Proxies by phase"
          actions={
            <LinkButton href="/proxies/new" tone="primary">
              Create Proxy
            </LinkButton>
          }
        >
          {proxies.isPending ? (
            <SkeletonRows rows={3} label="Proxies" />
          ) : proxies.isError ? (
            <ErrorPanel title="Could not load the Proxies" error={proxies.error} onRetry={() => void proxies.refetch()} />
          ) : (
            <ul className="grid grid-cols-2 gap-2 sm:grid-cols-3">
              {proxyPhases.map((phase) => (
                <li key={phase} className="flex items-center justify-between rounded-md border border-slate-200 px-3 py-2">
                  <PhaseBadge phase={phase} />
                  <span className="text-lg font-semibold">{byPhase.get(phase)}</span>
                </li>
              ))}
            </ul>
          )}
        </Panel>
      </div>
      <Panel title="Recent changes">
        <RecentChanges />
      </Panel>
    </div>
  );
}
