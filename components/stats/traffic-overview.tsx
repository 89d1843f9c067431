'use client';
// The overview's traffic: every Proxy's bytes in and out over the last hour (per minute) and the
// busiest Proxies, from the stored stats history.
import dynamic from 'next/dynamic';
import Link from 'next/link';
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatBytes, formatRate } from '@/components/ui/format';
import { Panel } from '@/components/ui/panel';
import { SkeletonChart } from '@/components/ui/skeleton';
import { chartSpec } from './chart-spec';
import { useTrafficOverview } from './queries';

const trafficChart = chartSpec(
  { testId: 'chart-traffic', title: 'All Proxies, per minute', format: formatRate },
  ['rxBps', 'in', '#059669'],
  ['txBps', 'out', '#d97706'],
);

const TimeSeriesChart = dynamic(() => import('./time-series-chart'), { ssr: false, loading: () => <SkeletonChart label="traffic chart" /> });

export function TrafficOverview() {
  const traffic = useTrafficOverview();
  const body = () => {
    if (traffic.isPending) return <SkeletonChart label="proxy traffic" />;
    if (traffic.isError) return <ErrorPanel title="Could not load the proxy traffic" error={traffic.error} onRetry={() => void traffic.refetch()} />;
    const { rxBytes, txBytes, points, busiest } = traffic.data;
    if (points.length === 0) return <p className="text-sm text-slate-600">No traffic sampled in the last hour: Proxy VMs are sampled once they run.</p>;
    return (
      <div className="grid gap-4 lg:grid-cols-3">
        <div className="lg:col-span-2">
          <p className="mb-2 text-sm text-slate-700" data-testid="traffic-total">
            <span className="font-medium">{formatBytes(rxBytes)}</span> in, <span className="font-medium">{formatBytes(txBytes)}</span> out in the last hour
          </p>
          <TimeSeriesChart {...trafficChart} points={points.map((point) => ({ ...point, at: Date.parse(point.at) }))} />
        </div>
        <div>
          <h3 className="mb-2 text-sm font-semibold text-slate-900">Busiest Proxies</h3>
          <ol className="space-y-1 text-sm" data-testid="busiest-proxies">
            {busiest.map((entry) => (
              <li key={entry.proxy} className="flex justify-between gap-2">
                <Link prefetch={false} href={`/proxies/${encodeURIComponent(entry.proxy)}`} className="truncate text-blue-800 underline underline-offset-2">
                  {entry.proxy}
                </Link>
                <span className="whitespace-nowrap text-slate-700">{formatBytes(entry.rxBytes + entry.txBytes)}</span>
              </li>
            ))}
          </ol>
        </div>
      </div>
    );
  };
  return <Panel title="Proxy traffic, last hour">{body()}</Panel>;
}
