// A sparkline's SVG path from its values: pure, so a table row draws one <path> instead of mounting
// a charting component (a hundred recharts charts cost the host page seconds). Values spread evenly
// from left to right, the vertical scale runs from 0 (or the lowest value, when one is negative) to
// the highest; a null breaks the line, as a gap in sampling should, and a value alone between gaps
// is a dot (a zero-length segment that the round line cap draws). All zeros lie on the baseline.
export interface SparklineBox {
  width: number;
  height: number;
  /** room kept on every side so the stroke is not clipped */
  inset: number;
}

export const sparklineBox: SparklineBox = { width: 96, height: 24, inset: 2 };

const round = (value: number): string => String(Math.round(value * 10) / 10);

/** The `d` of one <path> through `values` in `box`; '' when no value is known. */
export function sparklinePath(values: ReadonlyArray<number | null>, box: SparklineBox = sparklineBox): string {
  const known = values.filter((value): value is number => value !== null && Number.isFinite(value));
  if (known.length === 0) return '';
  const low = Math.min(0, ...known);
  const high = Math.max(...known);
  const span = high - low;
  const innerWidth = box.width - 2 * box.inset;
  const innerHeight = box.height - 2 * box.inset;
  const x = (index: number) => box.inset + (values.length === 1 ? innerWidth / 2 : (index * innerWidth) / (values.length - 1));
  const y = (value: number) => box.inset + innerHeight - (span === 0 ? 0 : ((value - low) / span) * innerHeight);
  const parts: string[] = [];
  let drawing = false;
  values.forEach((value, index) => {
    if (value === null || !Number.isFinite(value)) {
      drawing = false;
      return;
    }
    const point = `${round(x(index))} ${round(y(value))}`;
    const next = values[index + 1];
    const alone = !drawing && (next === undefined || next === null || !Number.isFinite(next));
    parts.push(drawing ? `L${point}` : alone ? `M${point}h0` : `M${point}`);
    drawing = true;
  });
  return parts.join('');
}
