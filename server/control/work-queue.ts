// A keyed work queue with client-go's guarantees: a key is queued at most once, a key is handed
// to one worker at a time (an add while it is being processed marks it dirty and it comes back
// after `done`), and delayed adds keep only the earliest time per key.
import type { Clock, TimerHandle } from './clock';

interface Delayed {
  at: number;
  handle: TimerHandle;
}

export class WorkQueue {
  private readonly order: string[] = [];
  /** keys waiting to be handed out, including dirty keys still being processed */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, Delayed>();
  private readonly waiters: Array<(key: string | undefined) => void> = [];
  private shuttingDown = false;

  constructor(private readonly clock: Clock) {}

  /** Queues `key` now; a pending delayed add for it is dropped (this pass will reschedule). */
  add(key: string): void {
    this.cancelDelayed(key);
    this.enqueue(key);
  }

  /** Queues `key` now unless it waits for a scheduled time (backoff, quota wait): resync uses this. */
  addUnlessScheduled(key: string): void {
    if (this.delayed.has(key)) return;
    this.enqueue(key);
  }

  /** Queues `key` after `delayMs`; an earlier pending time for the key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = this.clock.now() + delayMs;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) return;
    this.cancelDelayed(key);
    const handle = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.enqueue(key);
    }, delayMs);
    this.delayed.set(key, { at, handle });
  }

  /** The next key to process; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    const key = this.take();
    if (key !== undefined || this.shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks `key` processed; if it was added meanwhile it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.pushAndWake(key);
  }

  /** When the key is next due by a delayed add, for status and tests. */
  scheduledAt(key: string): number | undefined {
    return this.delayed.get(key)?.at;
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  get length(): number {
    return this.order.length;
  }

  /** Keys handed out and not yet done. */
  get inFlight(): number {
    return this.processing.size;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const key of [...this.delayed.keys()]) this.cancelDelayed(key);
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  private enqueue(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (!this.processing.has(key)) this.pushAndWake(key);
  }

  private pushAndWake(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.order.push(key);
  }

  private take(): string | undefined {
    const key = this.order.shift();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  private cancelDelayed(key: string): void {
    const pending = this.delayed.get(key);
    if (!pending) return;
    this.clock.clearTimeout(pending.handle);
    this.delayed.delete(key);
  }
}
