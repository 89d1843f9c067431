// A call's budget and abort signal: whichever fires first abandons the call, once.
//
// One caller's signal often goes to many concurrent calls (ListByTag reads every domain's metadata
// at once), so the calls on one signal share a single 'abort' listener: one per call would pass
// Node's limit of ten and print MaxListenersExceededWarning. The listener goes when its last call
// settles.
import { CallAbortedError, CallTimeoutError, type RpcError } from './errors';

export interface Budget {
  /** The call settled: disarm the timer and the signal listener. */
  clear(): void;
}

const watchers = new WeakMap<AbortSignal, { calls: Set<() => void>; listener: () => void }>();

/** Runs `onAbort` when `signal` aborts; the returned function takes it back. */
function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
  let watcher = watchers.get(signal);
  if (!watcher) {
    const calls = new Set<() => void>();
    const listener = () => {
      watchers.delete(signal);
      for (const call of [...calls]) call();
    };
    watcher = { calls, listener };
    watchers.set(signal, watcher);
    signal.addEventListener('abort', listener, { once: true });
  }
  const { calls, listener } = watcher;
  calls.add(onAbort);
  return () => {
    calls.delete(onAbort);
    if (calls.size > 0 || watchers.get(signal)?.calls !== calls) return;
    watchers.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}

export function armBudget(call: { procedure: string; timeoutMs: number; signal?: AbortSignal; abandon: (err: RpcError) => void }): Budget {
  const { procedure, timeoutMs, signal } = call;
  let active = true;
  const clear = () => {
    active = false;
    clearTimeout(timer);
    unwatch?.();
  };
  const fire = (err: RpcError) => {
    if (!active) return;
    clear();
    call.abandon(err);
  };
  const timer = Number.isFinite(timeoutMs) ? setTimeout(() => fire(new CallTimeoutError(procedure, timeoutMs)), timeoutMs) : undefined;
  const unwatch = signal && watchAbort(signal, () => fire(new CallAbortedError(procedure, { cause: signal.reason })));
  return { clear };
}
