'use client';
// A domain's CPU and traffic over the last hour as two sparklines, for the host page's domains
// table. The table reads the host's stats once (one request, one query observer) and splits them
// per domain once per answer (useDomainActivities); each row gets its series and draws two plain
// SVG paths, so a host with a thousand domains renders as fast as its table does.
import { memo, useMemo, useState } from 'react';
import { formatRate } from '@/components/ui/format';
import type { HostStats } from '@/lib/api/stats';
import { formatPercent } from './format';
import { useHostStats } from './queries';
import { Sparkline } from './sparkline';

export interface DomainActivitySeries {
  cpu: Array<number | null>;
  traffic: Array<number | null>;
}

const lastOf = (values: Array<number | null>): number | null => {
  for (let index = values.length - 1; index >= 0; index -= 1) if (values[index] !== null) return values[index] as number;
  return null;
};

type DomainPoints = HostStats['domains'][number]['points'];

/**
 * Each domain's CPU and traffic (received plus sent) series, by domain name. `seen` keeps the series
 * made from each points array: the query cache keeps the arrays of domains whose points did not
 * change between answers, so those domains get the very same series again and their rows skip
 * rendering.
 */
export function domainActivities(stats: HostStats | undefined, seen?: WeakMap<DomainPoints, DomainActivitySeries>): Map<string, DomainActivitySeries> {
  const byDomain = new Map<string, DomainActivitySeries>();
  for (const series of stats?.domains ?? []) {
    if (series.points.length === 0) continue;
    let activity = seen?.get(series.points);
    if (!activity) {
      activity = {
        cpu: series.points.map((point) => point.cpuPercent),
        traffic: series.points.map((point) => (point.netRxBps === null || point.netTxBps === null ? null : point.netRxBps + point.netTxBps)),
      };
      seen?.set(series.points, activity);
    }
    byDomain.set(series.domain, activity);
  }
  return byDomain;
}

/** The host's domains' series over the last hour, recomputed only when a new answer arrives. */
export function useDomainActivities(provider: string, host: string): Map<string, DomainActivitySeries> {
  const stats = useHostStats({ provider, host, window: '1h' });
  const [seen] = useState(() => new WeakMap<DomainPoints, DomainActivitySeries>());
  return useMemo(() => domainActivities(stats.data, seen), [stats.data, seen]);
}

export const DomainActivity = memo(function DomainActivity({ domain, series }: { domain: string; series: DomainActivitySeries | undefined }) {
  if (!series) return <span className="text-xs text-slate-600">—</span>;
  const cpuNow = lastOf(series.cpu);
  const trafficNow = lastOf(series.traffic);
  return (
    <span className="flex flex-col gap-0.5" data-testid={`domain-activity-${domain}`}>
      <span className="flex items-center gap-1 text-xs text-slate-700">
        <Sparkline values={series.cpu} color="#1d4ed8" label={`CPU over the last hour, now ${cpuNow === null ? 'unknown' : formatPercent(cpuNow)}`} />
        {cpuNow === null ? '—' : formatPercent(cpuNow)}
      </span>
      <span className="flex items-center gap-1 text-xs text-slate-700">
        <Sparkline
          values={series.traffic}
          color="#059669"
          label={`Traffic over the last hour, now ${trafficNow === null ? 'unknown' : formatRate(trafficNow)}`}
        />
        {trafficNow === null ? '—' : formatRate(trafficNow)}
      </span>
    </span>
  );
});
