'use client';
// A time chart drawn as plain SVG: grid, lines (one <path> each, sparkline-path.ts), an optional
// band shaded while a 0/1 series is 1, value and time axes, a legend for several lines and, under
// the pointer, the nearest point's time and values. Nothing is measured: the SVG stretches to its
// box (strokes keep their width) and the axes' labels are HTML placed in percent, so a page with a
// thousand table rows does not lay itself out again for every tick as recharts' text measuring did.
import { type PointerEvent, useMemo, useState } from 'react';
import { clockFormatterFor } from '@/components/ui/format';
import { timeTicks, valueTicks } from './chart-scale';
import type { SeriesLine } from './chart-spec';
import { linePath } from './sparkline-path';

export type TimePoint = { at: number } & Partial<Record<string, number | null>>;

/** A 0/1 series shaded where it is 1, each value holding until the next point (recharts' stepAfter). */
export interface PlotBand {
  key: string;
  color: string;
  fill: string;
  /** how its value reads under the pointer */
  describe: (value: number) => string;
}

export interface TimePlotProps {
  /** sorted by `at` (epoch ms) */
  points: ReadonlyArray<TimePoint>;
  lines: SeriesLine[];
  /** how a value reads under the pointer (and on the value axis, unless `tickFormat` says) */
  format: (value: number) => string;
  tickFormat?: (value: number) => string;
  /** whole-number value ticks only */
  integerTicks?: boolean;
  /** the value axis' width in px */
  axisWidth: number;
  band?: PlotBand;
}

// The drawing's coordinates; the SVG stretches them to its box.
const width = 1000;
const height = 100;

const valueOf = (point: TimePoint | undefined, key: string): number | null => {
  const value = point?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
};

/** The index of the point nearest to `at` (points sorted by time). */
function nearestIndex(points: ReadonlyArray<TimePoint>, at: number): number {
  let low = 0;
  let high = points.length - 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((points[middle]?.at ?? 0) < at) low = middle + 1;
    else high = middle;
  }
  const before = points[low - 1];
  return before && at - before.at < (points[low]?.at ?? 0) - at ? low - 1 : low;
}

/** The band's runs where its value is 1, as x ranges. */
function bandRuns(points: ReadonlyArray<TimePoint>, key: string, x: (index: number) => number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  points.forEach((point, index) => {
    if (valueOf(point, key) !== 1) return;
    const end = x(Math.min(index + 1, points.length - 1));
    const last = runs[runs.length - 1];
    if (last && last[1] === x(index)) last[1] = end;
    else runs.push([x(index), end]);
  });
  return runs;
}

const percent = (value: number, of: number): string => `${(value / of) * 100}%`;

export function TimePlot({ points, lines, format, tickFormat, integerTicks = false, axisWidth, band }: TimePlotProps) {
  const [hovered, setHovered] = useState<number | null>(null);
  const from = points[0]?.at ?? 0;
  const to = points[points.length - 1]?.at ?? 0;
  const drawing = useMemo(() => {
    const values = lines.flatMap((line) => points.map((point) => valueOf(point, line.key)).filter((value): value is number => value !== null));
    const ticks = valueTicks(values, integerTicks);
    const low = ticks[0] ?? 0;
    const top = ticks[ticks.length - 1] ?? 1;
    const x = (index: number) => (to > from ? (((points[index]?.at ?? from) - from) / (to - from)) * width : width / 2);
    const y = (value: number) => height - ((value - low) / (top - low)) * height;
    return {
      ticks,
      y,
      x,
      paths: lines.map((line) => ({
        line,
        d: linePath(
          points.map((point) => valueOf(point, line.key)),
          { x, y },
        ),
      })),
      runs: band ? bandRuns(points, band.key, x) : [],
    };
  }, [points, lines, integerTicks, band, from, to]);
  const clock = clockFormatterFor(to - from);
  const onMove = (event: PointerEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    setHovered(nearestIndex(points, from + ((event.clientX - box.left) / box.width) * (to - from)));
  };
  const point = hovered === null ? undefined : points[hovered];
  const pointX = hovered === null ? 0 : drawing.x(hovered);
  return (
    <div className="flex h-full flex-col text-[11px] text-slate-600">
      <div className="flex min-h-0 flex-1 pt-1">
        <div className="relative shrink-0" style={{ width: axisWidth }} aria-hidden="true">
          {drawing.ticks.map((tick) => (
            <span key={tick} className="absolute right-1.5 -translate-y-1/2 whitespace-nowrap" style={{ top: percent(drawing.y(tick), height) }}>
              {(tickFormat ?? format)(tick)}
            </span>
          ))}
        </div>
        <div className="relative mr-5 flex-1" onPointerMove={onMove} onPointerLeave={() => setHovered(null)}>
          <svg className="absolute inset-0 h-full w-full overflow-visible" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" aria-hidden="true">
            {drawing.ticks.map((tick) => (
              <path key={tick} d={`M0 ${drawing.y(tick)}H${width}`} stroke="#e2e8f0" vectorEffect="non-scaling-stroke" />
            ))}
            {band
              ? drawing.runs.map(([start, end]) => (
                  <g key={start}>
                    <path d={`M${start} 0H${end}V${height}H${start}Z`} fill={band.fill} fillOpacity={0.5} />
                    <path d={`M${start} 0H${end}`} stroke={band.color} vectorEffect="non-scaling-stroke" />
                  </g>
                ))
              : null}
            {drawing.paths.map(({ line, d }) => (
              <path
                key={line.key}
                d={d}
                data-series={line.key}
                fill="none"
                stroke={line.color}
                // Too few points for a line: each is a dot (the round cap of a zero-length segment).
                strokeWidth={points.length < 3 ? 6 : 2}
                strokeLinecap="round"
                strokeLinejoin="round"
                vectorEffect="non-scaling-stroke"
              />
            ))}
          </svg>
          {point ? (
            <>
              <div className="pointer-events-none absolute inset-y-0 w-px bg-slate-400" style={{ left: percent(pointX, width) }} />
              <div
                className={`pointer-events-none absolute top-0 z-10 whitespace-nowrap rounded border border-slate-300 bg-white px-2 py-1 text-xs text-slate-900 shadow ${pointX > width / 2 ? '-translate-x-full -ml-2' : 'ml-2'}`}
                style={{ left: percent(pointX, width) }}
              >
                <p>{new Date(point.at).toLocaleString()}</p>
                {lines.map((line) => {
                  const value = valueOf(point, line.key);
                  return (
                    <p key={line.key} style={{ color: line.color }}>
                      {line.label}: {value === null ? 'unknown' : format(value)}
                    </p>
                  );
                })}
                {band ? <p style={{ color: band.color }}>{band.describe(valueOf(point, band.key) ?? 0)}</p> : null}
              </div>
            </>
          ) : null}
        </div>
      </div>
      <div className="relative mr-5 h-5 shrink-0" style={{ marginLeft: axisWidth }} aria-hidden="true">
        {timeTicks(from, to).map((tick) => (
          <span key={tick} className="absolute top-1 -translate-x-1/2 whitespace-nowrap" style={{ left: to > from ? percent(tick - from, to - from) : '50%' }}>
            {clock(tick)}
          </span>
        ))}
      </div>
      {lines.length > 1 ? (
        <ul className="flex h-5 shrink-0 justify-center gap-4" aria-hidden="true">
          {lines.map((line) => (
            <li key={line.key} className="flex items-center gap-1">
              <span className="inline-block h-0.5 w-3" style={{ backgroundColor: line.color }} />
              {line.label}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
