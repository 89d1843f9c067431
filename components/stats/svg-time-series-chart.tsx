'use client';
// A stats chart (chart-spec.ts) drawn as plain SVG (time-plot.tsx): rendered with its data, no
// chart code to load. Same caption, accessible summary and test id as the recharts one.
import { chartSummary, type ChartSpec } from './chart-spec';
import { TimePlot, type TimePoint } from './time-plot';

export function SvgTimeSeriesChart({ points, ...chart }: ChartSpec & { points: ReadonlyArray<TimePoint> }) {
  return (
    <figure data-testid={chart.testId} data-points={points.length}>
      <figcaption className="mb-1 text-xs font-medium text-slate-700">{chart.title}</figcaption>
      <div role="img" aria-label={chartSummary(chart, points)} className="h-40">
        <TimePlot points={points} lines={chart.lines} format={chart.format} axisWidth={84} />
      </div>
    </figure>
  );
}
