'use client';
// The gateway's traffic through one Proxy over the window ("Via the gateway"), shown beside the
// VM's network chart: what crawlers' tunnels through this Proxy moved, in bytes per second per
// step. `in` came from the Proxy towards the crawlers. Without any in the window: a plain note.
import dynamic from 'next/dynamic';
import { formatRate } from '@/components/ui/format';
import { SkeletonChart } from '@/components/ui/skeleton';
import type { GatewayPoint } from '@/lib/api/stats';
import { chartSpec } from './chart-spec';

const TimeSeriesChart = dynamic(() => import('./time-series-chart'), { ssr: false, loading: () => <SkeletonChart label="Gateway chart" /> });

const title = 'Via the gateway';
const gatewayChart = chartSpec(
  { testId: 'chart-gateway', title, format: formatRate },
  ['inBps', 'in (to crawlers)', '#0f766e'],
  ['outBps', 'out (from crawlers)', '#b45309'],
);

export function GatewayTrafficChart({ points }: { points: GatewayPoint[] }) {
  if (points.length === 0) {
    return (
      <figure data-testid="chart-gateway-empty">
        <figcaption className="mb-1 text-xs font-medium text-slate-700">{title}</figcaption>
        <p className="text-sm text-slate-600">No traffic went through the gateway via this Proxy in this window.</p>
      </figure>
    );
  }
  return <TimeSeriesChart {...gatewayChart} points={points.map((point) => ({ ...point, at: Date.parse(point.at) }))} />;
}
