'use client';
// A host's own usage over 1 h, 24 h or 7 d: CPU % and memory used against total, and what a new VM
// needs next to each other: free memory beside the pool's free space. The charts are plain SVG,
// drawn with the data: no chart code to load, nothing measured on a page with a long domains table.
import { useState } from 'react';
import { useProviders } from '@/components/hosts/queries';
import { ErrorPanel } from '@/components/ui/error-panel';
import { formatBytes, formatGiB, gibOf } from '@/components/ui/format';
import { Panel } from '@/components/ui/panel';
import { SkeletonChart } from '@/components/ui/skeleton';
import { formatPercent } from './format';
import { type StatsWindowName, useHostStats } from './queries';
import { chartSpec, type ChartSpec } from './chart-spec';
import { SvgTimeSeriesChart } from './svg-time-series-chart';
import { WindowPicker } from './window-picker';

const hostCharts: ChartSpec[] = [
  chartSpec({ testId: 'host-chart-cpu', title: 'CPU (% of all CPUs)', format: formatPercent }, ['cpuPercent', 'CPU', '#1d4ed8']),
  chartSpec(
    { testId: 'host-chart-memory', title: 'Memory', format: formatBytes },
    ['memoryUsedBytes', 'used', '#7c3aed'],
    ['memoryTotalBytes', 'total', '#94a3b8'],
  ),
];

/** Free memory (latest sample) beside the configured pool's free space (latest check). */
function RoomForANewVm({ provider, host, freeMemoryBytes }: { provider: string; host: string; freeMemoryBytes: number | undefined }) {
  const providers = useProviders();
  const pool = providers.data?.find((entry) => entry.name === provider)?.targets.find((target) => target.name === host)?.pool;
  return (
    <p className="mb-3 text-sm text-slate-700" data-testid="host-free-resources">
      Room for a new VM: <span className="font-medium">{formatBytes(freeMemoryBytes)}</span> memory free ·{' '}
      <span className="font-medium">{formatGiB(gibOf(pool?.availableBytes))}</span> free in pool {pool?.name ?? ''}
    </p>
  );
}

export function HostStatsPanel({ provider, host }: { provider: string; host: string }) {
  const [span, setSpan] = useState<StatsWindowName>('1h');
  const stats = useHostStats({ provider, host, window: span });
  const body = () => {
    if (stats.isPending) return <SkeletonChart label="host usage" />;
    if (stats.isError) return <ErrorPanel title="Could not load the host's usage" error={stats.error} onRetry={() => void stats.refetch()} />;
    const points = stats.data.points.map((point) => ({ ...point, at: Date.parse(point.at) }));
    const last = points[points.length - 1];
    const free = last?.memoryTotalBytes != null && last.memoryUsedBytes != null ? last.memoryTotalBytes - last.memoryUsedBytes : undefined;
    return (
      <>
        <RoomForANewVm provider={provider} host={host} freeMemoryBytes={free} />
        {points.length === 0 ? (
          <p className="text-sm text-slate-600">No samples in this window yet: the host is sampled every few seconds.</p>
        ) : (
          <div className="grid gap-4 lg:grid-cols-2">
            {hostCharts.map((chart) => (
              <SvgTimeSeriesChart key={chart.testId} {...chart} points={points} />
            ))}
          </div>
        )}
      </>
    );
  };
  return (
    <Panel title="Host usage" actions={<WindowPicker value={span} onChange={setSpan} />}>
      {body()}
    </Panel>
  );
}
