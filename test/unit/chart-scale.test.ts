// The plain SVG charts' axes: value ticks at round steps from 0 to just above the highest value,
// whole numbers when asked; time ticks at round clock steps inside the span, about five of them.
import { describe, expect, it } from 'vitest';
import { timeTicks, valueTicks } from '@/components/stats/chart-scale';

describe('valueTicks', () => {
  it.each([
    { values: [0, 37.3], integer: false, ticks: [0, 10, 20, 30, 40] },
    { values: [12, 40], integer: false, ticks: [0, 10, 20, 30, 40] },
    { values: [150.3, 149], integer: false, ticks: [0, 50, 100, 150, 200] },
    { values: [0.3, 0.7], integer: false, ticks: [0, 0.2, 0.4, 0.6, 0.8] },
    { values: [0.3, 0.7], integer: true, ticks: [0, 1] },
    { values: [20, 59], integer: true, ticks: [0, 20, 40, 60] },
    { values: [-5, 5], integer: false, ticks: [-5, -2.5, 0, 2.5, 5] },
    { values: [0, 0], integer: false, ticks: [0, 1] },
    { values: [], integer: false, ticks: [0, 1] },
  ])('$values (integer: $integer) → $ticks', ({ values, integer, ticks }) => {
    expect(valueTicks(values, integer).map((tick) => Number(tick.toFixed(6)))).toEqual(ticks);
  });
});

describe('timeTicks', () => {
  const minute = 60_000;
  const from = Date.UTC(2026, 0, 1, 12, 7, 30);

  it('puts about five ticks at a round step inside an hour', () => {
    const ticks = timeTicks(from, from + 60 * minute);
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    expect(ticks.length).toBeLessThanOrEqual(5);
    for (const tick of ticks) {
      expect(tick).toBeGreaterThanOrEqual(from);
      expect(tick).toBeLessThanOrEqual(from + 60 * minute);
      expect(new Date(tick).getSeconds()).toBe(0);
      expect(new Date(tick).getMinutes() % 15).toBe(0);
    }
  });

  it('steps by hours over a day', () => {
    const ticks = timeTicks(from, from + 24 * 60 * minute);
    expect(ticks[1]! - ticks[0]!).toBe(6 * 60 * minute);
  });

  it('has the one time of a single point', () => {
    expect(timeTicks(from, from)).toEqual([from]);
  });
});
