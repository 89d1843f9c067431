// Numbers and times as an admin reads them. Pure functions, shared by every resource.

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '—';
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 || value >= 100 ? 0 : 1)} ${byteUnits[unit]}`;
}

export const formatGiB = (gib: number | undefined): string => (gib === undefined || !Number.isFinite(gib) ? '—' : `${gib.toFixed(1)} GiB`);

export const formatRate = (bytesPerSecond: number): string => `${formatBytes(bytesPerSecond)}/s`;

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

/** kubectl's AGE column: the largest unit or two. */
export function formatAge(iso: string | undefined, nowMs: number = Date.now()): string {
  if (!iso) return '—';
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return '—';
  return formatDuration((nowMs - then) / 1000);
}

export function formatLatency(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

export function formatTime(iso: string | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

// One Intl.DateTimeFormat per style, made on first use: toLocaleTimeString(undefined, options) builds
// a new one on every call, which cost the host page's charts hundreds of milliseconds per render
// (their axes format each tick several times). Same locale, same options, same text.
const dateTimeFormat = (options: Intl.DateTimeFormatOptions): ((ms: number) => string) => {
  let format: Intl.DateTimeFormat | undefined;
  return (ms) => {
    const date = new Date(ms);
    // format() throws on an invalid date where toLocale*String says so.
    return Number.isNaN(date.getTime()) ? 'Invalid Date' : (format ??= new Intl.DateTimeFormat(undefined, options)).format(date);
  };
};

export const formatClock = dateTimeFormat({ hour: '2-digit', minute: '2-digit' });
const formatClockSeconds = dateTimeFormat({ hour: '2-digit', minute: '2-digit', second: '2-digit' });
const formatDayClock = dateTimeFormat({ month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** Axis ticks that tell neighbours apart: seconds for a short span, the date for a long one. */
export function clockFormatterFor(spanMs: number): (ms: number) => string {
  if (spanMs < 15 * 60_000) return formatClockSeconds;
  if (spanMs < 36 * 3_600_000) return formatClock;
  return formatDayClock;
}

export const spanOf = (points: Array<{ at: number }>): number => (points.length < 2 ? 0 : (points[points.length - 1]?.at ?? 0) - (points[0]?.at ?? 0));

/** Bytes as GiB, for formatGiB and sums; undefined stays unknown. */
export const gibOf = (bytes: number | undefined): number | undefined => (bytes === undefined ? undefined : bytes / 1024 ** 3);
