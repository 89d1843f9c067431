// Waiting in tests without guessing at wall-clock time. A test waits for something to happen
// with a gate (a promise the code under test resolves, an event), `vi.waitFor`/`expect.poll`, or
// `until` below; it checks that something did NOT happen at an observable point: `nextTurn`, once
// everything the code had queued has run.

/**
 * One turn of the event loop: every promise callback and process.nextTick already queued, and
 * every one they queue in turn, has run when it resolves. Code that works in memory (fakes,
 * promise chains, in-memory streams) has then done all it will do without new input or a timer,
 * so a "nothing more happened" check after it is deterministic, not a bet on a sleep being long
 * enough. Code that waits on sockets, files or timers needs a gate of its own instead.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface UntilOptions<T> {
  /** what is awaited, for the error: "no <what> within N s" */
  what: string;
  timeoutMs: number;
  /** pause between probes; default 100 ms */
  intervalMs?: number;
  /** the value once there, undefined while not yet */
  probe: () => T | undefined | Promise<T | undefined>;
  /** ends the wait (with the signal's reason) before the next probe */
  signal?: AbortSignal;
}

/** `until`'s wait ran out: what it waited for did not come. */
export class WaitTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitTimeoutError';
  }
}

/**
 * Probes until `probe` gives a value and returns it; throws naming `what` after `timeoutMs`. For
 * waits on outside systems (a guest booting, a daemon answering) where each probe is itself slow
 * or fallible and its value is what the test needs next; for a condition on in-process state,
 * `vi.waitFor` or `expect.poll` reads better.
 */
export async function until<T>(options: UntilOptions<T>): Promise<T> {
  const { what, timeoutMs, probe } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new WaitTimeoutError(`no ${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
