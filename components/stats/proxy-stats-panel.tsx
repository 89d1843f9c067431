'use client';
// A Proxy's VM over 1 h, 24 h or 7 d: CPU %, memory, network in/out (the proxy's traffic) and disk
// I/O, from the stored history (the whole window on first load), refreshed at the sampling interval.
import dynamic from 'next/dynamic';
import { useState } from 'react';
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatBytes, formatRate } from '@/components/ui/format';
import { Panel } from '@/components/ui/panel';
import { SkeletonChart } from '@/components/ui/skeleton';
import { formatPercent } from './format';
import { type StatsWindowName, type VmPoint, useProxyStats } from './queries';
import { WindowPicker } from './window-picker';

const TimeSeriesChart = dynamic(() => import('./time-series-chart'), { ssr: false, loading: () => <SkeletonChart label="VM chart" /> });

const at = (point: VmPoint) => Date.parse(point.at);

export function ProxyStatsPanel({ name }: { name: string }) {
  const [span, setSpan] = useState<StatsWindowName>('1h');
  const stats = useProxyStats(name, span);
  const picker = <WindowPicker value={span} onChange={setSpan} />;
  const body = () => {
    if (stats.isPending) return <SkeletonChart label="VM charts" />;
    if (stats.isError) return <ErrorPanel title="Could not load the VM's stats" error={stats.error} onRetry={() => void stats.refetch()} />;
    const { points } = stats.data;
    if (points.length === 0) return <p className="text-sm text-slate-600">No samples in this window: the VM is sampled every few seconds once it runs.</p>;
    const series = points.map((point) => ({ ...point, at: at(point) }));
    return (
      <div className="grid gap-4 lg:grid-cols-2" data-testid="proxy-stats-charts">
        <TimeSeriesChart testId="chart-cpu" title="CPU (% of one host CPU)" points={series} lines={[{ key: 'cpuPercent', label: 'CPU', color: '#1d4ed8' }]} format={formatPercent} />
        <TimeSeriesChart
          testId="chart-memory"
          title="Memory"
          points={series}
          lines={[
            { key: 'memoryBytes', label: 'used on host', color: '#7c3aed' },
            { key: 'memoryTotalBytes', label: 'given to the VM', color: '#94a3b8' },
          ]}
          format={formatBytes}
        />
        <TimeSeriesChart
          testId="chart-network"
          title="Network"
          points={series}
          lines={[
            { key: 'netRxBps', label: 'in', color: '#059669' },
            { key: 'netTxBps', label: 'out', color: '#d97706' },
          ]}
          format={formatRate}
        />
        <TimeSeriesChart
          testId="chart-disk"
          title="Disk I/O"
          points={series}
          lines={[
            { key: 'diskReadBps', label: 'read', color: '#0891b2' },
            { key: 'diskWriteBps', label: 'write', color: '#be123c' },
          ]}
          format={formatRate}
        />
      </div>
    );
  };
  return (
    <Panel title="VM usage" actions={picker}>
      {body()}
    </Panel>
  );
}
