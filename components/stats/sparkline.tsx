'use client';
// A table cell's small line: no axes, no tooltip, the latest value as its accessible name.
import { Line, LineChart } from 'recharts';

export default function Sparkline({ values, label, color }: { values: Array<number | null>; label: string; color: string }) {
  const data = values.map((value, index) => ({ index, value }));
  return (
    <span role="img" aria-label={label} className="inline-block align-middle" data-testid="sparkline" data-points={values.length}>
      <LineChart width={96} height={24} data={data} margin={{ top: 2, right: 2, bottom: 2, left: 2 }} accessibilityLayer={false}>
        <Line dataKey="value" stroke={color} dot={false} strokeWidth={1.5} isAnimationActive={false} connectNulls={false} />
      </LineChart>
    </span>
  );
}
