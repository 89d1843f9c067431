'use client';
// One host's check history as two small charts: latency with up/down under it, and the pool's free
// space. Plain SVG (components/stats/time-plot.tsx), drawn with the data: no chart code to load.
import { formatLatency } from '@/components/ui/format';
import { TimePlot } from '@/components/stats/time-plot';
import type { HealthSample } from './queries';

// A type, not an interface: the plot reads points by their keys.
type Point = {
  at: number;
  latency: number;
  up: number;
  freeGiB?: number;
};

const toPoints = (samples: HealthSample[]): Point[] =>
  samples
    .map((sample) => ({ at: Date.parse(sample.checkedAt), latency: sample.latencyMs, up: sample.ready ? 1 : 0, freeGiB: sample.poolAvailableGiB }))
    .filter((point) => Number.isFinite(point.at));

const latencyLines = [{ key: 'latency', label: 'latency', color: '#1d4ed8' }];
const upBand = { key: 'up', color: '#059669', fill: '#a7f3d0', describe: (value: number) => (value === 1 ? 'up' : 'down') };
const freeLines = [{ key: 'freeGiB', label: 'free', color: '#7c3aed' }];
const formatFree = (value: number) => `${value.toFixed(2)} GiB`;

function summary(points: Point[]): string {
  const up = points.filter((point) => point.up === 1).length;
  const last = points[points.length - 1];
  return `${points.length} checks, ${up} up, ${points.length - up} down; last latency ${last ? formatLatency(last.latency) : 'unknown'}`;
}

export function HostHealthCharts({ samples, host }: { samples: HealthSample[]; host: string }) {
  const points = toPoints(samples);
  if (points.length === 0) return <p className="text-sm text-slate-600">No checks recorded yet; the first one arrives within the check interval.</p>;
  const withSpace = points.filter((point) => point.freeGiB !== undefined);
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <figure>
        <figcaption className="mb-1 text-xs font-medium text-slate-700">Check latency (ms); shaded while up</figcaption>
        <div role="img" aria-label={`${host}: ${summary(points)}`} className="h-40">
          <TimePlot points={points} lines={latencyLines} band={upBand} format={formatLatency} tickFormat={String} integerTicks axisWidth={36} />
        </div>
      </figure>
      <figure>
        <figcaption className="mb-1 text-xs font-medium text-slate-700">Pool free space (GiB)</figcaption>
        {withSpace.length === 0 ? (
          <p className="text-sm text-slate-600">The checks have not reported the pool&apos;s free space.</p>
        ) : (
          <div role="img" aria-label={`${host}: pool free space, last ${withSpace[withSpace.length - 1]?.freeGiB?.toFixed(1)} GiB`} className="h-40">
            <TimePlot points={withSpace} lines={freeLines} format={formatFree} tickFormat={String} integerTicks axisWidth={36} />
          </div>
        )}
      </figure>
    </div>
  );
}
