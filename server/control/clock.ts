// Time as the control loops see it. Everything that waits goes through a Clock so tests drive it
// with fake timers; the system clock reads the globals at call time, so vi.useFakeTimers applies.
export type TimerHandle = unknown;

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export const isoTime = (clock: Clock): string => new Date(clock.now()).toISOString();

/** A signal that aborts after `timeoutMs` on `clock` or when `parent` aborts; dispose when done. */
export function timeoutSignal(options: { clock: Clock; timeoutMs: number; parent?: AbortSignal; reason: () => Error }): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const { clock, timeoutMs, parent, reason } = options;
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const handle = clock.setTimeout(() => controller.abort(reason()), timeoutMs);
  return {
    signal: controller.signal,
    dispose: () => {
      clock.clearTimeout(handle);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
