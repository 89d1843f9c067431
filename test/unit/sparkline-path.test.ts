// The sparkline's path builder: where the points land in the box, gaps for nulls, a dot for a
// value alone, nothing for no values, a flat line on the baseline.
import { describe, expect, it } from 'vitest';
import { sparklinePath } from '@/components/stats/sparkline-path';

const box = { width: 100, height: 20, inset: 0 };

/** The path's points as [x, y] pairs, per subpath (each M starts one). */
const subpaths = (d: string): number[][][] =>
  d
    .split('M')
    .filter(Boolean)
    .map((part) => [...part.replace(/h0$/, '').matchAll(/(-?[\d.]+) (-?[\d.]+)/g)].map((match) => [Number(match[1]), Number(match[2])]));

describe('sparklinePath', () => {
  it('spreads the values from left to right and scales them from 0 at the bottom to the highest at the top', () => {
    expect(subpaths(sparklinePath([0, 5, 10], box))).toEqual([
      [
        [0, 20],
        [50, 10],
        [100, 0],
      ],
    ]);
  });

  it('keeps the inset free on every side', () => {
    const points = subpaths(sparklinePath([0, 10], { width: 96, height: 24, inset: 2 }))[0];
    expect(points).toEqual([
      [2, 22],
      [94, 2],
    ]);
  });

  it('breaks the line at a null instead of joining across the gap', () => {
    const parts = subpaths(sparklinePath([1, 2, null, 3, 4], box));
    expect(parts).toHaveLength(2);
    expect(parts[0]?.map(([x]) => x)).toEqual([0, 25]);
    expect(parts[1]?.map(([x]) => x)).toEqual([75, 100]);
  });

  it('draws a value alone between gaps as a dot', () => {
    const d = sparklinePath([null, 4, null], box);
    expect(d).toBe('M50 0h0');
  });

  it('draws nothing when no value is known', () => {
    expect(sparklinePath([], box)).toBe('');
    expect(sparklinePath([null, null], box)).toBe('');
  });

  it('lays a flat series on the baseline', () => {
    expect(subpaths(sparklinePath([0, 0, 0], box))[0]?.map(([, y]) => y)).toEqual([20, 20, 20]);
    expect(subpaths(sparklinePath([7, 7], box))[0]?.map(([, y]) => y)).toEqual([0, 0]);
  });

  it('scales from the lowest value when one is negative', () => {
    expect(subpaths(sparklinePath([-10, 10], box))[0]).toEqual([
      [0, 20],
      [100, 0],
    ]);
  });
});
