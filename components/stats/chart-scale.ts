// A time chart's axes without a charting library: round value ticks from 0 (or the lowest value)
// to just above the highest, and time ticks at round clock steps. Pure, so they are tested alone.

/** About this many ticks on either axis, as recharts drew them. */
const tickCount = 5;

/** The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is at least `rough`. */
function roundStep(rough: number, integer: boolean): number {
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? 10 * power;
  return integer ? Math.max(1, Math.ceil(step)) : step;
}

/** Value ticks covering `values` (0 always included); `integer` for whole-number ticks only. */
export function valueTicks(values: ReadonlyArray<number>, integer = false): number[] {
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  if (high === low) return [0, 1];
  const step = roundStep((high - low) / (tickCount - 1), integer);
  const first = Math.floor(low / step) * step;
  const ticks: number[] = [];
  for (let tick = first; tick < high + step; tick += step) ticks.push(Math.round(tick / step) * step);
  return ticks;
}

const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;
const timeSteps = [10 * second, 15 * second, 30 * second, minute, 2 * minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute];
const longSteps = [hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour, 24 * hour, 48 * hour];

/** Times between `from` and `to` at a round step (local clock), at most about five of them. */
export function timeTicks(from: number, to: number): number[] {
  if (!(to > from)) return [from];
  const step = [...timeSteps, ...longSteps].find((candidate) => (to - from) / candidate <= tickCount) ?? 7 * 24 * hour;
  // Round in local time: a tick at 14:00 where the admin reads the clock, not at UTC's.
  const offset = new Date(from).getTimezoneOffset() * minute;
  const ticks: number[] = [];
  for (let tick = Math.ceil((from - offset) / step) * step + offset; tick <= to; tick += step) ticks.push(tick);
  return ticks;
}
