'use client';
// A time series as one or more lines over a shared time axis, gaps where the server had no rate
// (the first sample, a VM restarted), dots while there are too few points for a line. Loaded
// lazily (recharts) behind a skeleton.
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { clockFormatterFor, spanOf } from '@/components/ui/format';
import { chartSummary, type ChartSpec } from './chart-spec';

export interface TimeSeriesChartProps extends ChartSpec {
  /** each point: `at` in epoch ms, then one value (or null) per line key */
  points: Array<{ at: number } & Record<string, number | null>>;
}

const axisTick = { fontSize: 11, fill: '#475569' };

export default function TimeSeriesChart(props: TimeSeriesChartProps) {
  const { title, points, lines, format, testId } = props;
  const tick = clockFormatterFor(spanOf(points));
  return (
    <figure data-testid={testId} data-points={points.length}>
      <figcaption className="mb-1 text-xs font-medium text-slate-700">{title}</figcaption>
      <div role="img" aria-label={chartSummary(props, points)} className="h-40">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={points} margin={{ top: 4, right: 20, bottom: 0, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid stroke="#e2e8f0" vertical={false} />
            <XAxis dataKey="at" type="number" scale="time" domain={['dataMin', 'dataMax']} tickFormatter={tick} tick={axisTick} minTickGap={40} />
            <YAxis tick={axisTick} width={84} tickFormatter={(value: number) => format(value)} domain={[0, 'auto']} />
            <Tooltip labelFormatter={(value) => new Date(Number(value)).toLocaleString()} formatter={(value) => format(Number(value))} />
            {lines.length > 1 ? <Legend wrapperStyle={{ fontSize: 11 }} /> : null}
            {lines.map((line) => (
              <Line
                key={line.key}
                dataKey={line.key}
                name={line.label}
                stroke={line.color}
                dot={points.length < 3}
                strokeWidth={2}
                isAnimationActive={false}
                connectNulls={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
