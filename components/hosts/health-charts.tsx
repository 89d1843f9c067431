'use client';
// One host's check history as two small charts: latency with up/down under it, and the pool's free
// space. Loaded lazily (recharts is the heaviest thing on the page) behind a skeleton.
import { Area, CartesianGrid, ComposedChart, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { clockFormatterFor, formatLatency, spanOf } from '@/components/ui/format';
import type { HealthSample } from './queries';

interface Point {
  at: number;
  latency: number;
  up: number;
  freeGiB?: number;
}

const toPoints = (samples: HealthSample[]): Point[] =>
  samples
    .map((sample) => ({ at: Date.parse(sample.checkedAt), latency: sample.latencyMs, up: sample.ready ? 1 : 0, freeGiB: sample.poolAvailableGiB }))
    .filter((point) => Number.isFinite(point.at));

const axisTick = { fontSize: 11, fill: '#475569' };

function summary(points: Point[]): string {
  const up = points.filter((point) => point.up === 1).length;
  const last = points[points.length - 1];
  return `${points.length} checks, ${up} up, ${points.length - up} down; last latency ${last ? formatLatency(last.latency) : 'unknown'}`;
}

export default function HostHealthCharts({ samples, host }: { samples: HealthSample[]; host: string }) {
  const points = toPoints(samples);
  if (points.length === 0) return <p className="text-sm text-slate-600">No checks recorded yet; the first one arrives within the check interval.</p>;
  const withSpace = points.filter((point) => point.freeGiB !== undefined);
  const tick = clockFormatterFor(spanOf(points));
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <figure>
        <figcaption className="mb-1 text-xs font-medium text-slate-700">Check latency (ms); shaded while up</figcaption>
        <div role="img" aria-label={`${host}: ${summary(points)}`} className="h-40">
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart data={points} margin={{ top: 4, right: 20, bottom: 0, left: 0 }} accessibilityLayer={false}>
              <CartesianGrid stroke="#e2e8f0" vertical={false} />
              <XAxis dataKey="at" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={tick} tick={axisTick} minTickGap={40} />
              <YAxis yAxisId="latency" tick={axisTick} width={36} allowDecimals={false} />
              <YAxis yAxisId="up" hide domain={[0, 1]} />
              <Tooltip
                labelFormatter={(value) => new Date(Number(value)).toLocaleString()}
                formatter={(value, name) => (name === 'up' ? (value === 1 ? 'up' : 'down') : formatLatency(Number(value)))}
              />
              <Area yAxisId="up" dataKey="up" type="stepAfter" stroke="#059669" fill="#a7f3d0" fillOpacity={0.5} isAnimationActive={false} name="up" />
              <Line yAxisId="latency" dataKey="latency" stroke="#1d4ed8" dot={false} strokeWidth={2} isAnimationActive={false} name="latency" />
            </ComposedChart>
          </ResponsiveContainer>
        </div>
      </figure>
      <figure>
        <figcaption className="mb-1 text-xs font-medium text-slate-700">Pool free space (GiB)</figcaption>
        {withSpace.length === 0 ? (
          <p className="text-sm text-slate-600">The checks have not reported the pool&apos;s free space.</p>
        ) : (
          <div role="img" aria-label={`${host}: pool free space, last ${withSpace[withSpace.length - 1]?.freeGiB?.toFixed(1)} GiB`} className="h-40">
            <ResponsiveContainer width="100%" height="100%">
              <LineChart data={withSpace} margin={{ top: 4, right: 20, bottom: 0, left: 0 }} accessibilityLayer={false}>
                <CartesianGrid stroke="#e2e8f0" vertical={false} />
                <XAxis dataKey="at" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={tick} tick={axisTick} minTickGap={40} />
                <YAxis tick={axisTick} width={36} domain={[0, 'auto']} allowDecimals={false} />
                <Tooltip labelFormatter={(value) => new Date(Number(value)).toLocaleString()} formatter={(value) => `${Number(value).toFixed(2)} GiB`} />
                <Line dataKey="freeGiB" stroke="#7c3aed" dot={false} strokeWidth={2} isAnimationActive={false} name="free" />
              </LineChart>
            </ResponsiveContainer>
          </div>
        )}
      </figure>
    </div>
  );
}
