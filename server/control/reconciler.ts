// The reconciler: a work queue of Proxy names served by N workers (3 by default), one pass per
// key at a time. What a pass returns decides when the key comes back: an expected wait is an
// explicit requeue, quota waits QuotaRetry, an error backs off exponentially (capped), a latched
// Failed and a converged Proxy wait for a change or the periodic resync.
import type { Metrics, ReconcileOutcome } from '@/server/telemetry/metrics';
import { type BackoffPolicy, backoffDelay } from './backoff';
import type { Clock } from './clock';
import { errorMessage } from '@/lib/error-message';
import { type PassDeps, type PassOutcome } from './pass';
import { reconcileProxy } from './reconcile-proxy';
import { Ticker } from './ticker';
import { WorkQueue } from './work-queue';

export interface ReconcilerOptions extends Omit<PassDeps, 'signal'> {
  workers: number;
  backoff: BackoffPolicy;
  resyncIntervalMs: number;
  metrics?: Metrics;
  /** told when a Proxy's pass ended with it Running (the prober probes it at once) */
  onRunning?: (name: string) => void;
}

const metricOutcome: Record<PassOutcome['kind'], ReconcileOutcome> = {
  done: 'ready',
  requeue: 'requeue',
  quota: 'quota',
  failed: 'failed',
  error: 'error',
  removed: 'removed',
  skipped: 'skipped',
};

export class Reconciler {
  private queue: WorkQueue;
  private readonly failures = new Map<string, number>();
  private controller = new AbortController();
  private readonly resync: Ticker;
  private workers: Promise<void>[] = [];
  private idleWaiters: Array<() => void> = [];
  private running = false;
  /** store reads of resyncAll/enqueueAll still to land in the queue (the reconciler is not idle) */
  private listing = 0;

  constructor(private readonly options: ReconcilerOptions) {
    this.queue = new WorkQueue(options.clock);
    this.resync = new Ticker({
      name: 'resync',
      clock: options.clock,
      intervalMs: options.resyncIntervalMs,
      logger: options.logger,
      run: () => this.resyncAll(),
    });
  }

  /** Queues every Proxy and starts the workers and the periodic resync (again after a stop). */
  start(): void {
    if (this.running) return;
    if (this.controller.signal.aborted) {
      this.controller = new AbortController();
      this.queue = new WorkQueue(this.options.clock);
    }
    this.running = true;
    this.workers = Array.from({ length: this.options.workers }, () => this.work());
    this.resync.start(true);
    this.resyncAll().catch((err: unknown) =>
      this.options.logger.error({ error: errorMessage(err) }, 'listing the Proxies failed; the next resync tries again'),
    );
  }

  /** Queues a Proxy now, ahead of any backoff or wait (a spec change, a delete, a reload). */
  enqueue(name: string): void {
    this.queue.add(name);
  }

  /** Queues every Proxy that is not waiting for a scheduled time. */
  resyncAll(): Promise<void> {
    return this.forEveryProxy((name) => this.queue.addUnlessScheduled(name));
  }

  /** Queues every Proxy now, waiting or not (a providers config change may unblock any). */
  enqueueAll(): Promise<void> {
    return this.forEveryProxy((name) => this.queue.add(name));
  }

  private async forEveryProxy(queue: (name: string) => void): Promise<void> {
    this.listing++;
    try {
      for (const name of await this.options.store.proxies.names()) queue(name);
    } finally {
      this.listing--;
      if (this.isIdle()) this.wakeIdle();
    }
  }

  /** Consecutive failures of a Proxy's passes (0 after any pass that did not fail). */
  failureCount(name: string): number {
    return this.failures.get(name) ?? 0;
  }

  /** When the Proxy's next pass is due, if it waits for a time. */
  scheduledAt(name: string): number | undefined {
    return this.queue.scheduledAt(name);
  }

  /** Resolves once no pass runs and nothing is queued for now (delayed keys may remain). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Abandons in-flight provider calls (they fail transiently) and waits for the workers to end. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.controller.abort(new Error('reconciler stopped'));
    this.queue.shutDown();
    await this.resync.stop();
    await Promise.all(this.workers);
    this.wakeIdle();
  }

  private async work(): Promise<void> {
    for (;;) {
      const name = await this.queue.get();
      if (name === undefined) return;
      try {
        await this.process(name);
      } finally {
        this.queue.done(name);
        if (this.isIdle()) this.wakeIdle();
      }
    }
  }

  private async process(name: string): Promise<void> {
    let outcome: PassOutcome;
    try {
      outcome = await reconcileProxy({ ...this.options, signal: this.controller.signal }, name);
    } catch (err) {
      // Not a provider error (the pass records those): the store or a bug. Back off all the same.
      this.options.logger.error({ proxy: name, error: errorMessage(err) }, 'reconcile pass failed');
      outcome = { kind: 'error', error: err };
    }
    this.options.metrics?.reconcileTotal.inc({ outcome: metricOutcome[outcome.kind] });
    if (!this.running) return;
    this.schedule(name, outcome);
  }

  private schedule(name: string, outcome: PassOutcome): void {
    if (outcome.kind === 'error') {
      const failures = (this.failures.get(name) ?? 0) + 1;
      this.failures.set(name, failures);
      this.queue.addAfter(name, backoffDelay(failures, this.options.backoff));
      return;
    }
    this.failures.delete(name);
    if (outcome.kind === 'requeue' || outcome.kind === 'quota') this.queue.addAfter(name, outcome.afterMs);
    if (outcome.kind === 'done' && outcome.becameRunning) this.options.onRunning?.(name);
  }

  private isIdle(): boolean {
    return this.listing === 0 && this.queue.inFlight === 0 && this.queue.length === 0;
  }

  private wakeIdle(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
