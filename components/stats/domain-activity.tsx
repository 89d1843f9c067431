'use client';
// A domain's CPU and traffic over the last hour as two sparklines, for the host page's domains
// table; every row reads the same host query, so the table costs one request.
import dynamic from 'next/dynamic';
import { formatRate } from '@/components/ui/format';
import { formatPercent } from './format';
import { useHostStats } from './queries';

const Sparkline = dynamic(() => import('./sparkline'), { ssr: false });

const lastOf = (values: Array<number | null>): number | null => [...values].reverse().find((value) => value !== null) ?? null;

export function DomainActivity({ provider, host, domain }: { provider: string; host: string; domain: string }) {
  const stats = useHostStats(provider, host, '1h');
  const series = stats.data?.domains.find((entry) => entry.domain === domain);
  if (!series || series.points.length === 0) return <span className="text-xs text-slate-600">—</span>;
  const cpu = series.points.map((point) => point.cpuPercent);
  const traffic = series.points.map((point) => (point.netRxBps === null || point.netTxBps === null ? null : point.netRxBps + point.netTxBps));
  const cpuNow = lastOf(cpu);
  const trafficNow = lastOf(traffic);
  return (
    <span className="flex flex-col gap-0.5" data-testid={`domain-activity-${domain}`}>
      <span className="flex items-center gap-1 text-xs text-slate-700">
        <Sparkline values={cpu} color="#1d4ed8" label={`CPU over the last hour, now ${cpuNow === null ? 'unknown' : formatPercent(cpuNow)}`} />
        {cpuNow === null ? '—' : formatPercent(cpuNow)}
      </span>
      <span className="flex items-center gap-1 text-xs text-slate-700">
        <Sparkline values={traffic} color="#059669" label={`Traffic over the last hour, now ${trafficNow === null ? 'unknown' : formatRate(trafficNow)}`} />
        {trafficNow === null ? '—' : formatRate(trafficNow)}
      </span>
    </span>
  );
}
