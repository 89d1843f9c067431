// What a stats chart shows, apart from how it is drawn (recharts, loaded lazily, or plain SVG): its
// title, its lines and how its values read, written one chart per line; and its summary for screen
// readers.
export interface SeriesLine {
  key: string;
  label: string;
  color: string;
}

export interface ChartSpec {
  testId: string;
  title: string;
  lines: SeriesLine[];
  format: (value: number) => string;
}

/** A chart of `lines`, each `[point key, legend label, colour]`. */
export function chartSpec(options: { testId: string; title: string; format: (value: number) => string }, ...lines: Array<[string, string, string]>): ChartSpec {
  return { ...options, lines: lines.map(([key, label, color]) => ({ key, label, color })) };
}

/** The chart's accessible name: its title, how many points and each line's latest value. */
export function chartSummary({ title, lines, format }: ChartSpec, points: ReadonlyArray<Partial<Record<string, number | null>>>): string {
  const last = points[points.length - 1];
  const values = lines.map((line) => {
    const value = last?.[line.key];
    return `${line.label} ${typeof value === 'number' ? format(value) : 'unknown'}`;
  });
  return `${title}: ${points.length} points; latest ${values.join(', ')}`;
}
