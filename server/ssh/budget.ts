// One deadline for a whole dial (credentials, TCP connect, SSH handshake, and the socket forward
// when dialling a forward), fed by the caller's AbortSignal and a timer. Stages check and
// subscribe to `signal`; when it fires they destroy what they hold and reject with `error()`,
// which says whether time ran out or the caller gave up.

import { SshDialError, type SshDialStage } from './errors';

export interface DialBudget {
  readonly signal: AbortSignal;
  /** The typed error for a dial stopped by this budget during `stage`. */
  error(stage: SshDialStage): SshDialError;
  /** Throws error(stage) if the budget has already fired. */
  check(stage: SshDialStage): void;
  dispose(): void;
}

class BudgetExpired extends Error {}

export function startDialBudget(options: { signal?: AbortSignal; timeoutMs: number; target: string }): DialBudget {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new BudgetExpired(`dial budget of ${options.timeoutMs} ms exhausted`)), options.timeoutMs);
  const onCallerAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onCallerAbort();
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const error = (stage: SshDialStage) => {
    const reason: unknown = controller.signal.reason;
    const timedOut = reason instanceof BudgetExpired;
    return new SshDialError({
      code: timedOut ? 'SSH_TIMEOUT' : 'SSH_ABORTED',
      stage,
      message: timedOut
        ? `ssh dial ${options.target}: timed out after ${options.timeoutMs} ms (${stage} stage)`
        : `ssh dial ${options.target}: aborted by the caller (${stage} stage)`,
      cause: reason,
    });
  };

  return {
    signal: controller.signal,
    error,
    check(stage) {
      if (controller.signal.aborted) throw error(stage);
    },
    dispose() {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    },
  };
}
