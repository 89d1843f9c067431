// A call's budget and abort signal: whichever fires first abandons the call, once.
import { CallAbortedError, CallTimeoutError, type RpcError } from './errors';

export interface Budget {
  /** The call settled: disarm the timer and the signal listener. */
  clear(): void;
}

export function armBudget(call: { procedure: string; timeoutMs: number; signal?: AbortSignal; abandon: (err: RpcError) => void }): Budget {
  const { procedure, timeoutMs, signal } = call;
  let active = true;
  const clear = () => {
    active = false;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  const fire = (err: RpcError) => {
    if (!active) return;
    clear();
    call.abandon(err);
  };
  const onAbort = () => fire(new CallAbortedError(procedure, { cause: signal?.reason }));
  const timer = Number.isFinite(timeoutMs) ? setTimeout(() => fire(new CallTimeoutError(procedure, timeoutMs)), timeoutMs) : undefined;
  signal?.addEventListener('abort', onAbort, { once: true });
  return { clear };
}
