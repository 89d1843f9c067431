// The charts' axis clocks: the same text as toLocale*String with the same options (what they were
// before they kept one Intl.DateTimeFormat per style), per span, and an invalid time says so instead
// of throwing.
import { describe, expect, it } from 'vitest';
import { clockFormatterFor, formatClock } from '@/components/ui/format';

const at = Date.UTC(2026, 11, 2, 9, 5, 7);

describe('clock formatters', () => {
  it('print what toLocaleTimeString / toLocaleString print, by span', () => {
    const date = new Date(at);
    expect(formatClock(at)).toBe(date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }));
    expect(clockFormatterFor(5 * 60_000)(at)).toBe(date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }));
    expect(clockFormatterFor(3_600_000)(at)).toBe(date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }));
    expect(clockFormatterFor(7 * 86_400_000)(at)).toBe(date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }));
  });

  it('say an invalid time is invalid, as toLocaleTimeString does', () => {
    expect(formatClock(Number.NaN)).toBe(new Date(Number.NaN).toLocaleTimeString());
  });
});
