// A table cell's small line: one <svg> with one <path> built from the values (sparkline-path.ts),
// no axes, no tooltip, the latest value as its accessible name. Memoised on its inputs: a row that
// re-renders with the same series reuses its path.
import { memo, useMemo } from 'react';
import { sparklineBox, sparklinePath } from './sparkline-path';

export const Sparkline = memo(function Sparkline({ values, label, color }: { values: ReadonlyArray<number | null>; label: string; color: string }) {
  const d = useMemo(() => sparklinePath(values), [values]);
  return (
    <svg
      role="img"
      aria-label={label}
      width={sparklineBox.width}
      height={sparklineBox.height}
      viewBox={`0 0 ${sparklineBox.width} ${sparklineBox.height}`}
      className="inline-block shrink-0 align-middle"
      data-testid="sparkline"
      data-points={values.length}
    >
      <path d={d} fill="none" stroke={color} strokeWidth={1.5} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
});
