// One reconcile pass over one Proxy: the record read at the start, the status as last committed,
// and the commit that writes status and events together. Provider errors are turned into status
// here, through one table of reactions per error class.
import type { ErrorClassName } from '@/lib/proxy-spec';
import { errorClassOf } from '@/server/providers/errors';
import type { Store } from '@/server/store';
import type { EventInput } from '@/server/store/events';
import type { ProxyRecord, ReconcileStatus } from '@/server/store/proxies';
import type { Logger } from '@/server/telemetry/logger';
import { type Clock, isoTime } from './clock';
import { type ConditionUpdate, setCondition } from './conditions';
import { specHash } from './names';
import type { ProviderLookup } from './provider-set';
import { errorMessage } from '@/lib/error-message';

export interface PassDeps {
  store: Store;
  providers: ProviderLookup;
  clock: Clock;
  logger: Logger;
  /** aborted when the runtime stops: in-flight provider calls end with ErrTransient */
  signal: AbortSignal;
  quotaRetryMs: number;
  provisioningPollMs: number;
  /** told when Create has started a Proxy's VM (boot capture opens its console); must not throw */
  onInstanceStarted?: (proxy: string, providerID: string) => void;
  /**
   * told on every pass that found a Proxy's VM there (not stopped or paused) or could not read it
   * just now, so boot capture resumes after a restart; must not throw
   */
  onInstanceObserved?: (proxy: string, providerID: string) => void;
  /** told when a Proxy's record is gone (its deletion finished): its console is forgotten; must not throw */
  onRemoved?: (proxy: string) => void;
  /** before a Proxy's VM is deleted: lets the gateway's open tunnels through it end (bounded by GATEWAY_DRAIN) */
  drain?: (proxy: string, signal: AbortSignal) => Promise<void>;
}

/** What the pass asks of the queue. */
export type PassOutcome =
  /** converged; `becameRunning` when this pass moved it to Running (the prober looks at once) */
  | { kind: 'done'; becameRunning?: boolean }
  | { kind: 'requeue'; afterMs: number }
  | { kind: 'quota'; afterMs: number }
  | { kind: 'failed' }
  | { kind: 'error'; error: unknown }
  | { kind: 'removed' }
  | { kind: 'skipped' };

export type ProvisionedUpdate = Omit<ConditionUpdate, 'type' | 'now'>;

interface Reaction {
  phase: (current: ReconcileStatus['phase']) => ReconcileStatus['phase'];
  reason: string;
  event: string;
  outcome: (pass: Pass, err: unknown) => PassOutcome;
}

const keepPhase = (current: ReconcileStatus['phase']) => (current === 'Pending' ? 'Provisioning' : current);

// The reconciler's answer to each error class (spec, "Error classes"): permanent latches Failed
// until the spec changes, quota waits QuotaRetry off the backoff curve, the rest backs off.
const reactions: Record<ErrorClassName, Reaction> = {
  permanent: { phase: () => 'Failed', reason: 'ProvisioningFailed', event: 'Failed', outcome: () => ({ kind: 'failed' }) },
  quotaExceeded: {
    phase: keepPhase,
    reason: 'QuotaExceeded',
    event: 'QuotaExceeded',
    outcome: (pass) => ({ kind: 'quota', afterMs: pass.deps.quotaRetryMs }),
  },
  transient: { phase: keepPhase, reason: 'ReconcileError', event: 'ReconcileError', outcome: (_pass, error) => ({ kind: 'error', error }) },
  notFound: { phase: keepPhase, reason: 'ReconcileError', event: 'ReconcileError', outcome: (_pass, error) => ({ kind: 'error', error }) },
  unclassified: { phase: keepPhase, reason: 'ReconcileError', event: 'ReconcileError', outcome: (_pass, error) => ({ kind: 'error', error }) },
};

export class Pass {
  readonly hash: string;
  readonly logger: Logger;
  private committed: ReconcileStatus;

  constructor(
    readonly deps: PassDeps,
    readonly record: ProxyRecord,
  ) {
    this.hash = specHash(record.spec);
    this.committed = record.status;
    this.logger = deps.logger.child({ proxy: record.name, uid: record.uid });
  }

  get status(): ReconcileStatus {
    return this.committed;
  }

  now(): string {
    return isoTime(this.deps.clock);
  }

  /** The current status with the Provisioned condition set. */
  withProvisioned(status: ReconcileStatus, update: ProvisionedUpdate): ReconcileStatus {
    return { ...status, conditions: setCondition(status.conditions, { type: 'Provisioned', ...update, now: this.now() }) };
  }

  /**
   * Writes `next` and `events` in one transaction (nothing when both are unchanged and empty), with
   * a PhaseChanged event when the phase moved. Called before a provider action to record the intent
   * it announces, and at the end of the pass with the outcome.
   */
  async commit(proposed: ReconcileStatus, events: EventInput[] = []): Promise<void> {
    const previous = this.committed;
    const next = proposed.phase === 'Failed' ? proposed : { ...proposed, failedUnderConfig: undefined };
    const all: EventInput[] = [];
    if (previous.phase !== next.phase) all.push({ type: 'Normal', reason: 'PhaseChanged', message: `${previous.phase} → ${next.phase}` });
    all.push(...events);
    if (all.length === 0 && JSON.stringify(previous) === JSON.stringify(next)) return;
    const { store, clock } = this.deps;
    await store.transaction(async (tx) => {
      await tx.proxies.writeStatus(this.record.uid, next);
      for (const event of all) await tx.events.record(this.record.uid, { ...event, atMs: clock.now() });
    });
    this.committed = next;
    if (previous.phase !== next.phase) this.logger.info({ from: previous.phase, to: next.phase }, 'proxy phase changed');
  }

  /** Records `err` by its class and returns what the queue should do. */
  async fail(err: unknown, doing: string): Promise<PassOutcome> {
    // Shutting down abandons calls: that is not the Proxy's error, so nothing is recorded.
    if (this.deps.signal.aborted) return { kind: 'error', error: err };
    const errorClass: ErrorClassName = errorClassOf(err) ?? 'unclassified';
    const reaction = reactions[errorClass];
    const message = errorMessage(err);
    const status = this.committed;
    let next: ReconcileStatus = {
      ...status,
      phase: reaction.phase(status.phase),
      observedSpecHash: this.hash,
      lastError: { class: errorClass, message, at: this.now() },
    };
    if (next.phase === 'Failed') next.failedUnderConfig = this.deps.providers.version();
    else delete next.failedUnderConfig;
    // A Running instance whose Get failed for a while is still provisioned; say so only in lastError.
    if (next.phase !== 'Running') next = this.withProvisioned(next, { status: 'False', reason: reaction.reason, message });
    await this.commit(next, [{ type: 'Warning', reason: reaction.event, message: `${doing}: ${errorClass}: ${message}` }]);
    this.logger.warn({ errorClass, error: message, doing }, 'reconcile error');
    return reaction.outcome(this, err);
  }

  /** Records `err` and backs off whatever its class: for deletes, which must not latch. */
  async retry(err: unknown, doing: string): Promise<PassOutcome> {
    if (this.deps.signal.aborted) return { kind: 'error', error: err };
    const errorClass: ErrorClassName = errorClassOf(err) ?? 'unclassified';
    const message = errorMessage(err);
    await this.commit({ ...this.committed, lastError: { class: errorClass, message, at: this.now() } }, [
      { type: 'Warning', reason: 'ReconcileError', message: `${doing}: ${errorClass}: ${message}` },
    ]);
    this.logger.warn({ errorClass, error: message, doing }, 'reconcile error');
    return { kind: 'error', error: err };
  }
}
