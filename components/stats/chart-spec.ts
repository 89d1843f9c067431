// What a stats chart shows, apart from recharts (which loads lazily): its title, its lines and how
// its values read, written one chart per line.
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
