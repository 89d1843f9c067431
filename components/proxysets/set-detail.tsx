'use client';
// One set: how it is doing (desired / Ready / updating / failing, rollout), scale, its spread over
// the hosts, why it may have stopped replacing, its members (the Proxies table, with bulk Replace)
// and its events. Live: the feed's proxyset and proxy messages refresh it.
import { hasCode } from '@/components/api/client';
import { ProxiesTable } from '@/components/proxies/proxies-table';
import { Badge } from '@/components/ui/badge';
import { LinkButton } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { PageHeader, Panel } from '@/components/ui/panel';
import { SkeletonRows } from '@/components/ui/skeleton';
import type { ProxySetView } from '@/lib/api/proxysets';
import { HostsBar } from './hosts-bar';
import { useProxySet } from './queries';
import { ScaleControl } from './scale-control';
import { SetActions } from './set-actions';
import { SetConditions } from './set-conditions';
import { SetEvents } from './set-events';
import { setState } from './sets-table';

function Count({ label, value, testId }: { label: string; value: number | string; testId: string }) {
  return (
    <div>
      <dt className="text-xs text-slate-600">{label}</dt>
      <dd className="text-2xl font-semibold text-slate-900" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

function Summary({ set }: { set: ProxySetView }) {
  const { status } = set;
  const state = setState(set);
  return (
    <div className="space-y-4">
      <dl className="grid grid-cols-2 gap-4 md:grid-cols-5">
        <Count label="Desired" value={set.replicas} testId="set-desired" />
        <Count label="Ready" value={status.ready} testId="set-ready" />
        <Count label="Members" value={status.members} testId="set-members" />
        <Count label="Updating" value={status.updating} testId="set-updating" />
        <Count label="Failing" value={status.failing} testId="set-failing" />
      </dl>
      <p className="text-sm text-slate-800" data-testid="set-rollout">
        <Badge tone={state.tone}>{state.text}</Badge>{' '}
        {status.rollout.state === 'Complete'
          ? `Every member is made from the current template (${status.updated}/${set.replicas}).`
          : `Rolling change ${status.rollout.state === 'Paused' ? 'paused' : 'in progress'}: ${status.rollout.updated} of ${status.rollout.replicas} members from the new template (at most ${set.maxSurge} extra at a time, at most ${set.maxUnavailable} unavailable).`}
      </p>
      <p className="text-xs text-slate-600">
        {`Template: ${set.template.provider} · ${set.template.placement.machineType} · ${set.template.placement.image} · port ${set.template.port} · cloud-init ${set.template.cloudInit.bytes} bytes. Ready timeout ${set.readyTimeout}; at most ${set.replacementBudget.max} replacements per ${set.replacementBudget.window}; host-down grace ${set.hostDownGrace}.`}
      </p>
    </div>
  );
}

export function SetDetail({ name }: { name: string }) {
  const set = useProxySet(name);
  if (set.isPending) {
    return (
      <>
        <PageHeader title={name} />
        <SkeletonRows rows={6} label="the set" />
      </>
    );
  }
  if (set.isError) {
    if (hasCode(set.error, 'ERR_PROXYSET_NOT_FOUND')) {
      return (
        <EmptyState title={`There is no set named ${name}`} action={<LinkButton href="/sets">All sets</LinkButton>}>
          It may have been deleted.
        </EmptyState>
      );
    }
    return <ErrorPanel title="Could not load the set" error={set.error} onRetry={() => void set.refetch()} />;
  }
  const view = set.data;
  return (
    <>
      <PageHeader title={view.name} description={`Set of ${view.replicas} Proxies`} actions={<SetActions set={view} />} />
      <div className="space-y-6">
        <Panel title="Status" actions={<ScaleControl set={view} />}>
          <Summary set={view} />
        </Panel>
        <Panel title="Members per host">
          <HostsBar label="Members per host" hosts={view.status.hosts} />
        </Panel>
        <Panel title="Conditions">
          <SetConditions set={view} />
        </Panel>
        <Panel title="Members">
          <ProxiesTable set={view.name} />
        </Panel>
        <Panel title="Events">
          <SetEvents name={view.name} />
        </Panel>
      </div>
    </>
  );
}
