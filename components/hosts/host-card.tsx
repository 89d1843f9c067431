'use client';
// One configured host: its latest check (reason, explanation, facts, free space) and its history.
import Link from 'next/link';
import type { ReactNode } from 'react';
import { formatGiB, formatLatency, formatTime, gibOf } from '@/components/ui/format';
import { UsageBar } from '@/components/ui/usage-bar';
import { describeVirtType } from '@/lib/virt-type-view';
import { HostHealthCharts } from './health-charts';
import { HealthBadge, HealthExplanation } from './health-reason';
import type { TargetPoolView } from '@/lib/api/providers';
import type { HealthSample, TargetView } from './queries';

export function hostHref(provider: string, host: string): string {
  return `/hosts/${encodeURIComponent(provider)}/${encodeURIComponent(host)}`;
}

function Fact({ label, value }: { label: string; value: string | undefined }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-600">{label}</dt>
      <dd className="truncate text-sm text-slate-900" title={value}>
        {value || '—'}
      </dd>
    </div>
  );
}

export function PoolSpace({ pool }: { pool: TargetPoolView | undefined }) {
  const capacity = gibOf(pool?.capacityBytes);
  const available = gibOf(pool?.availableBytes);
  if (capacity === undefined || available === undefined) return <p className="text-sm text-slate-600">Free space unknown: the check did not reach the pool.</p>;
  return (
    <UsageBar
      label={`Pool ${pool?.name ?? ''} usage`}
      used={capacity - available}
      total={capacity}
      text={`${formatGiB(available)} free of ${formatGiB(capacity)}`}
    />
  );
}

/** A warning when the host's virtualisation is slower than expected (KVM lost) or cannot work (kvm configured, none offered). */
function VirtTypeWarning({ details }: { details: Record<string, string> }) {
  const { warning } = describeVirtType(details);
  if (!warning) return null;
  return (
    <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-slate-900" data-testid="virt-type-warning">
      <p className="font-semibold">{warning.title}</p>
      <p className="mt-1">{warning.text}</p>
    </div>
  );
}

export function HostCard({
  provider,
  target,
  samples,
  showCharts = true,
  actions,
}: {
  provider: string;
  target: TargetView;
  samples?: HealthSample[];
  showCharts?: boolean;
  actions?: ReactNode;
}) {
  const { details } = target;
  return (
    <article
      className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
      data-testid={`host-card-${target.name}`}
      aria-labelledby={`host-${provider}-${target.name}`}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={`host-${provider}-${target.name}`} className="text-base font-semibold">
          <Link
            href={hostHref(provider, target.name)}
            className="rounded text-blue-800 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
          >
            {target.name}
          </Link>
          <span className="ml-2 text-xs font-normal text-slate-600">{provider}</span>
        </h3>
        <div className="flex items-center gap-2">
          {actions}
          <HealthBadge reason={target.reason} details={details} />
        </div>
      </div>
      <div className="mt-3 space-y-3">
        <HealthExplanation reason={target.reason} message={target.message} details={details} />
        <VirtTypeWarning details={details} />
        <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
          <Fact label="libvirt" value={details.libvirtVersion} />
          <Fact label="Hostname" value={details.hostname} />
          <Fact label={`Pool ${target.pool?.name ?? ''}`.trim()} value={target.pool?.state} />
          <Fact label="Check latency" value={target.checkedAt ? formatLatency(target.latencyMs) : undefined} />
          <Fact label="Virtualisation" value={describeVirtType(details).label} />
        </dl>
        <PoolSpace pool={target.pool} />
        <p className="text-xs text-slate-600">Last checked {formatTime(target.checkedAt)}</p>
        {showCharts && samples ? <HostHealthCharts samples={samples} host={target.name} /> : null}
      </div>
    </article>
  );
}
