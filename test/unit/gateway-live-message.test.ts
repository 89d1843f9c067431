// The gateway's live message: while traffic moves, the page hears `gateway` at most once a second
// (the first change at once, the rest of a busy second in one message at its end), and nothing
// while nothing moves; an API token's stream never carries it (it is the admin's traffic).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayAccounting } from '@/server/gateway/accounting';
import { changeThrottle } from '@/server/gateway/change-throttle';
import { readerChange } from '@/server/http/live-reader';
import { createMetrics } from '@/server/telemetry/metrics';

afterEach(() => {
  vi.useRealTimers();
});

function accountingAnnouncing() {
  vi.useFakeTimers();
  const sent: number[] = [];
  const throttle = changeThrottle({ intervalMs: 1_000, send: () => sent.push(Date.now()) });
  const accounting = new GatewayAccounting({ metrics: createMetrics(), changed: throttle.changed });
  return { sent, throttle, accounting, start: Date.now() };
}

describe('the gateway live message', () => {
  it('goes out at once on the first change, then at most once a second while traffic moves', () => {
    const { sent, accounting, start } = accountingAnnouncing();
    accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    expect(sent).toEqual([start]);
    for (let ms = 100; ms <= 2_500; ms += 100) {
      vi.advanceTimersByTime(100);
      accounting.progress(1, { bytesIn: ms, bytesOut: 0 });
    }
    expect(sent).toEqual([start, start + 1_000, start + 2_000]);
    vi.advanceTimersByTime(1_000);
    // the changes after the last message got theirs; then silence
    expect(sent).toEqual([start, start + 1_000, start + 2_000, start + 3_000]);
    vi.advanceTimersByTime(10_000);
    expect(sent).toHaveLength(4);
  });

  it('says nothing while nothing moves (a progress report without new bytes is no change)', () => {
    const { sent, accounting } = accountingAnnouncing();
    accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    accounting.progress(1, { bytesIn: 10, bytesOut: 0 });
    vi.advanceTimersByTime(5_000);
    const before = sent.length;
    accounting.progress(1, { bytesIn: 10, bytesOut: 0 });
    vi.advanceTimersByTime(5_000);
    expect(sent).toHaveLength(before);
  });

  it('stops with nothing pending once stopped', () => {
    const { sent, accounting, throttle } = accountingAnnouncing();
    accounting.opened({ connection: 1, proxy: 'p1', token: 't1' });
    accounting.progress(1, { bytesIn: 10, bytesOut: 0 });
    throttle.stop();
    vi.advanceTimersByTime(5_000);
    expect(sent).toHaveLength(1);
  });

  it('is not carried on an API token stream', () => {
    expect(readerChange({ kind: 'gateway' })).toBeUndefined();
  });
});
