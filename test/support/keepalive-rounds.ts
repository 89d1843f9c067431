// SSH keepalive rounds on a faked clock over a real link: a test fakes the timers before it dials
// (`vi.useFakeTimers(keepaliveClock)`), then drives the keepalive one round at a time, each round
// waiting for the peer's reply, so "alive across many rounds, past the reply timeout" takes as
// long as the replies do instead of a wall-clock wait longer than the timeout.
import { expect, vi } from 'vitest';
import { nextTurn } from './wait';

/** The timers the keepalive uses; Date stays real, and so do setImmediate and I/O. */
export const keepaliveClock = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] } satisfies Parameters<typeof vi.useFakeTimers>[0];

export interface KeepaliveRounds {
  rounds: number;
  /** the connection's keepaliveIntervalMs */
  intervalMs: number;
  /** how long, in real time, a reply may take before the round fails; default 2 s */
  replyWithinMs?: number;
}

/**
 * Advances the faked clock by one interval ROUNDS times, right after the dial: each round must
 * send a request (its reply timeout starts) and see the reply (the timeout is cleared) before the
 * next. The keepalive's interval is then the only timer left, as it was at the start.
 */
export async function runKeepaliveRounds(options: KeepaliveRounds): Promise<void> {
  const idle = vi.getTimerCount();
  for (let round = 1; round <= options.rounds; round++) {
    vi.advanceTimersByTime(options.intervalMs);
    expect(vi.getTimerCount(), `keepalive round ${round} sent`).toBe(idle + 1);
    const deadline = Date.now() + (options.replyWithinMs ?? 2_000);
    while (vi.getTimerCount() > idle && Date.now() < deadline) await nextTurn();
    expect(vi.getTimerCount(), `the reply to keepalive round ${round}`).toBe(idle);
  }
}
