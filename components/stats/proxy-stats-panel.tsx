'use client';
// A Proxy's VM over 1 h, 24 h or 7 d: CPU %, memory, network in/out (the proxy's traffic) with the
// gateway's traffic through it right beside, and disk I/O, from the stored history (the whole
// window on first load), refreshed at the sampling interval. A Proxy without a VM of ours (Static)
// shows the gateway's traffic alone.
import dynamic from 'next/dynamic';
import { useState } from 'react';
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatBytes, formatRate } from '@/components/ui/format';
import { Panel } from '@/components/ui/panel';
import { SkeletonChart } from '@/components/ui/skeleton';
import { formatPercent } from './format';
import { type StatsWindowName, type VmPoint, useProxyStats } from './queries';
import { chartSpec, type ChartSpec } from './chart-spec';
import { GatewayTrafficChart } from './gateway-traffic-chart';
import { WindowPicker } from './window-picker';

const TimeSeriesChart = dynamic(() => import('./time-series-chart'), { ssr: false, loading: () => <SkeletonChart label="VM chart" /> });

const at = (point: VmPoint) => Date.parse(point.at);

/** One chart per row: what it shows of each point and how its values read. */
const vmCharts: ChartSpec[] = [
  chartSpec({ testId: 'chart-cpu', title: 'CPU (% of one host CPU)', format: formatPercent }, ['cpuPercent', 'CPU', '#1d4ed8']),
  chartSpec(
    { testId: 'chart-memory', title: 'Memory', format: formatBytes },
    ['memoryBytes', 'used on host', '#7c3aed'],
    ['memoryTotalBytes', 'given to the VM', '#94a3b8'],
  ),
  chartSpec({ testId: 'chart-network', title: 'Network', format: formatRate }, ['netRxBps', 'in', '#059669'], ['netTxBps', 'out', '#d97706']),
  chartSpec({ testId: 'chart-disk', title: 'Disk I/O', format: formatRate }, ['diskReadBps', 'read', '#0891b2'], ['diskWriteBps', 'write', '#be123c']),
];

/**
 * `provider` and `host`: where the VM runs, when known (live updates reach the charts through
 * them); `vm` false for a Proxy without a VM of ours: the gateway's traffic alone.
 */
export function ProxyStatsPanel({ name, provider, host, vm = true }: { name: string; provider?: string; host?: string; vm?: boolean }) {
  const [span, setSpan] = useState<StatsWindowName>('1h');
  const stats = useProxyStats({ name, window: span, provider, host });
  const picker = <WindowPicker value={span} onChange={setSpan} />;
  const body = () => {
    if (stats.isPending) return <SkeletonChart label={vm ? 'VM charts' : 'Gateway chart'} />;
    if (stats.isError) return <ErrorPanel title="Could not load the Proxy's stats" error={stats.error} onRetry={() => void stats.refetch()} />;
    const { points, gateway } = stats.data;
    const gatewayChart = <GatewayTrafficChart key="chart-gateway" points={gateway} />;
    if (!vm) return gatewayChart;
    if (points.length === 0) {
      return (
        <div className="grid gap-4 lg:grid-cols-2">
          <p className="text-sm text-slate-600">No samples in this window: the VM is sampled every few seconds once it runs.</p>
          {gatewayChart}
        </div>
      );
    }
    const series = points.map((point) => ({ ...point, at: at(point) }));
    // Two charts a row: the gateway's right after the VM's network, so they sit side by side.
    return (
      <div className="grid gap-4 lg:grid-cols-2" data-testid="proxy-stats-charts">
        {vmCharts.flatMap((chart) => {
          const figure = <TimeSeriesChart key={chart.testId} {...chart} points={series} />;
          return chart.testId === 'chart-network' ? [figure, gatewayChart] : [figure];
        })}
      </div>
    );
  };
  return (
    <Panel title={vm ? 'VM usage' : 'Traffic via the gateway'} actions={picker}>
      {body()}
    </Panel>
  );
}
