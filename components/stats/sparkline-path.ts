// Line paths from values, pure, so a table row or a chart draws one <path> per line instead of
// mounting a charting component (a hundred recharts charts cost the host page seconds). A null
// breaks the line, as a gap in sampling should, and a value alone between gaps is a dot (a
// zero-length segment that the round line cap draws). A sparkline spreads its values evenly from
// left to right, its vertical scale running from 0 (or the lowest value, when one is negative) to
// the highest; all zeros lie on the baseline.
export interface SparklineBox {
  width: number;
  height: number;
  /** room kept on every side so the stroke is not clipped */
  inset: number;
}

/** Where the value at `index` lands: its x and y in the drawing's coordinates. */
export interface LineScale {
  x: (index: number) => number;
  y: (value: number) => number;
}

export const sparklineBox: SparklineBox = { width: 96, height: 24, inset: 2 };

const round = (value: number): string => String(Math.round(value * 10) / 10);

/** The `d` of one <path> through `values` placed by `scale`; '' when no value is known. */
export function linePath(values: ReadonlyArray<number | null>, scale: LineScale): string {
  const parts: string[] = [];
  let drawing = false;
  values.forEach((value, index) => {
    if (value === null || !Number.isFinite(value)) {
      drawing = false;
      return;
    }
    const point = `${round(scale.x(index))} ${round(scale.y(value))}`;
    const next = values[index + 1];
    const alone = !drawing && (next === undefined || next === null || !Number.isFinite(next));
    parts.push(drawing ? `L${point}` : alone ? `M${point}h0` : `M${point}`);
    drawing = true;
  });
  return parts.join('');
}

/** The `d` of one sparkline through `values` in `box`; '' when no value is known. */
export function sparklinePath(values: ReadonlyArray<number | null>, box: SparklineBox = sparklineBox): string {
  const known = values.filter((value): value is number => value !== null && Number.isFinite(value));
  if (known.length === 0) return '';
  const low = Math.min(0, ...known);
  const high = Math.max(...known);
  const span = high - low;
  const innerWidth = box.width - 2 * box.inset;
  const innerHeight = box.height - 2 * box.inset;
  return linePath(values, {
    x: (index) => box.inset + (values.length === 1 ? innerWidth / 2 : (index * innerWidth) / (values.length - 1)),
    y: (value) => box.inset + innerHeight - (span === 0 ? 0 : ((value - low) / span) * innerHeight),
  });
}
