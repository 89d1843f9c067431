'use client';
// Probe latency of one Proxy as a line, unhealthy probes marked red. Loaded lazily (recharts).
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { clockFormatterFor, formatLatency, spanOf } from '@/components/ui/format';
import type { ProbeSample } from './queries';

interface ProbePoint {
  at: number;
  latencyMs: number;
  healthy: boolean;
}

const toPoints = (samples: ProbeSample[]): ProbePoint[] =>
  samples
    .map((sample) => ({ at: Date.parse(sample.probedAt), latencyMs: sample.latencyMs, healthy: sample.healthy }))
    .filter((point) => Number.isFinite(point.at));

const axisTick = { fontSize: 11, fill: '#475569' };

export default function ProbeChart({ samples, name }: { samples: ProbeSample[]; name: string }) {
  const points = toPoints(samples);
  const last = points[points.length - 1];
  const tick = clockFormatterFor(spanOf(points));
  return (
    <div role="img" aria-label={`${name}: ${points.length} probes, last ${last ? formatLatency(last.latencyMs) : 'unknown'}`} className="h-48">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 4, right: 20, bottom: 0, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid stroke="#e2e8f0" vertical={false} />
          <XAxis dataKey="at" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={tick} tick={axisTick} minTickGap={40} />
          <YAxis tick={axisTick} width={36} />
          <Tooltip labelFormatter={(value) => new Date(Number(value)).toLocaleString()} formatter={(value) => formatLatency(Number(value))} />
          <Line
            dataKey="latencyMs"
            stroke="#1d4ed8"
            strokeWidth={2}
            isAnimationActive={false}
            name="latency"
            dot={(props: { cx?: number; cy?: number; payload?: ProbePoint; index?: number }) => (
              <circle key={props.index} cx={props.cx} cy={props.cy} r={3} fill={props.payload?.healthy ? '#1d4ed8' : '#dc2626'} />
            )}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
