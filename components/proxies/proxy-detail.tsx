'use client';
// One Proxy: what it is and where it runs, how it is doing (conditions, probe latency, events),
// the base-image download it may be waiting on, and Delete.
import dynamic from 'next/dynamic';
import Link from 'next/link';
import type { ProxyView } from '@/lib/proxy-spec';
import { proxySetLabel } from '@/lib/api/proxyset-spec';
import { hostHref } from '@/components/hosts/host-card';
import { hasCode } from '@/components/api/client';
import { ProxyStatsPanel } from '@/components/stats/proxy-stats-panel';
import { LinkButton } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatAge, formatLatency, formatTime } from '@/components/ui/format';
import { PageHeader, Panel } from '@/components/ui/panel';
import { SkeletonChart, SkeletonRows } from '@/components/ui/skeleton';
import { ConditionsTable } from './conditions-table';
import { DeleteProxyButton } from './delete-dialog';
import { DiagnosisChecklist } from './diagnosis-checklist';
import { DownloadProgressPanel } from './download-progress';
import { EventsTimeline } from './events-timeline';
import { HealthyBadge, PhaseBadge } from './phase-badge';
import { useProbeHistory, useProxy } from './queries';

const ConsoleTerminal = dynamic(() => import('./console-terminal'), { ssr: false, loading: () => <SkeletonRows label="console" /> });
const ProbeChart = dynamic(() => import('./probe-chart'), { ssr: false, loading: () => <SkeletonChart label="probe latency" /> });

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-600">{label}</dt>
      <dd className="break-words text-sm text-slate-900">{children}</dd>
    </div>
  );
}

function Summary({ proxy }: { proxy: ProxyView }) {
  const { status } = proxy;
  const host = status.chosenPlacement?.zone ?? proxy.placement?.zone ?? status.host;
  const labels = Object.entries(proxy.labels);
  return (
    <dl className="grid grid-cols-2 gap-4 md:grid-cols-4">
      <Fact label="Phase">
        <PhaseBadge phase={status.phase} />
      </Fact>
      <Fact label="Healthy">
        <HealthyBadge healthy={status.healthy} phase={status.phase} />
      </Fact>
      <Fact label="Address">
        {(status.ip ?? proxy.address) ? <span className="font-mono">{`${status.ip ?? proxy.address}:${proxy.port}`}</span> : 'not known yet'}
      </Fact>
      <Fact label="Egress IP">{status.egressIP ? <span className="font-mono">{status.egressIP}</span> : '—'}</Fact>
      {proxy.mode === 'Managed' ? (
        <>
          <Fact label="Provider">{proxy.provider ?? '—'}</Fact>
          <Fact label="Host (zone)">
            {host && proxy.provider ? (
              <Link className="text-blue-800 underline underline-offset-2" href={hostHref(proxy.provider, host)}>
                {host}
              </Link>
            ) : (
              (host ?? '—')
            )}
            {status.chosenPlacement ? <span className="block text-xs text-slate-600">chosen automatically: {status.chosenPlacement.reason}</span> : null}
          </Fact>
          <Fact label="Machine type">{proxy.placement?.machineType ?? '—'}</Fact>
          <Fact label="Image">{proxy.placement?.image ?? '—'}</Fact>
          <Fact label="Provider ID">{status.providerID ? <span className="font-mono text-xs">{status.providerID}</span> : '—'}</Fact>
        </>
      ) : null}
      <Fact label="Last probe">{status.probedAt ? `${formatLatency(status.probeLatencyMs)} at ${formatTime(status.probedAt)}` : '—'}</Fact>
      {proxy.mode === 'Managed' ? <Fact label="cloud-init">{proxy.cloudInit ? `${proxy.cloudInit.bytes} bytes` : 'none'}</Fact> : null}
      <Fact label="Age">{formatAge(proxy.createdAt)}</Fact>
      <Fact label="Labels">
        {labels.length === 0
          ? 'none'
          : labels.map(([key, value]) => <code key={key} className="mr-1 inline-block rounded bg-slate-100 px-1 text-xs">{`${key}=${value}`}</code>)}
      </Fact>
    </dl>
  );
}

const probeWindowMs = 24 * 60 * 60 * 1000;

function ProbeLatency({ name }: { name: string }) {
  const history = useProbeHistory(name, probeWindowMs);
  if (history.isPending) return <SkeletonChart label="probe latency" />;
  if (history.isError) return <ErrorPanel title="Could not load the probe history" error={history.error} onRetry={() => void history.refetch()} />;
  if (history.data.length === 0)
    return <p className="text-sm text-slate-600">No probe yet: the health probe starts once the Proxy is Running with an address.</p>;
  return (
    <>
      <ProbeChart samples={history.data} name={name} />
      <p className="mt-1 text-xs text-slate-600">Probes of the last 24 hours.</p>
    </>
  );
}

/** A set's member is changed through its set; any other Proxy is edited and deleted here. */
function ProxyActions({ proxy }: { proxy: ProxyView }) {
  const set = proxy.labels[proxySetLabel];
  if (set) return <LinkButton href={`/sets/${encodeURIComponent(set)}`}>Member of set {set}</LinkButton>;
  return (
    <>
      <LinkButton href={`/proxies/${encodeURIComponent(proxy.name)}/edit`}>Edit</LinkButton>
      <DeleteProxyButton proxy={proxy} />
    </>
  );
}

export function ProxyDetail({ name }: { name: string }) {
  const proxy = useProxy(name);
  if (proxy.isPending) {
    return (
      <>
        <PageHeader title={name} />
        <SkeletonRows rows={6} label="the Proxy" />
      </>
    );
  }
  if (proxy.isError) {
    if (hasCode(proxy.error, 'ERR_PROXY_NOT_FOUND')) {
      return (
        <EmptyState title={`There is no Proxy named ${name}`} action={<LinkButton href="/proxies">All Proxies</LinkButton>}>
          It may have been deleted.
        </EmptyState>
      );
    }
    return <ErrorPanel title="Could not load the Proxy" error={proxy.error} onRetry={() => void proxy.refetch()} />;
  }
  const view = proxy.data;
  const waiting = view.status.phase === 'Pending' || view.status.phase === 'Provisioning';
  return (
    <>
      <PageHeader title={view.name} description={`${view.mode} Proxy`} actions={<ProxyActions proxy={view} />} />
      <div className="space-y-6">
        {view.mode === 'Managed' ? <DownloadProgressPanel name={view.name} waiting={waiting} /> : null}
        {view.status.lastError ? (
          <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
            <span className="font-semibold">Last error ({view.status.lastError.class}):</span>{' '}
            <span className="break-words">{view.status.lastError.message}</span>
          </div>
        ) : null}
        <Panel title="Status and placement">
          <Summary proxy={view} />
        </Panel>
        <DiagnosisChecklist proxy={view} />
        <Panel title="Conditions">
          <ConditionsTable conditions={view.status.conditions} />
        </Panel>
        <ProxyStatsPanel name={view.name} provider={view.provider} host={view.status.host} vm={view.mode === 'Managed'} />
        {view.mode === 'Managed' ? (
          <Panel title="Serial console">
            <ConsoleTerminal name={view.name} />
          </Panel>
        ) : null}
        <div className="grid gap-6 lg:grid-cols-2">
          <Panel title="Probe latency (ms)">
            <ProbeLatency name={view.name} />
          </Panel>
          <Panel title="Events">
            <EventsTimeline name={view.name} />
          </Panel>
        </div>
      </div>
    </>
  );
}
