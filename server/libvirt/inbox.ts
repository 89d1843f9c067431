// The packets of one stream's serial, queued until the stream reads them, plus its failure.
import type { Packet } from './framing';

export interface InboxOptions {
  /** Queued payload bytes past which `onFull` fires (download backpressure). */
  highWaterMark?: number;
  onFull?: () => void;
  /** Fires when the queue has drained to half the high-water mark again. */
  onDrained?: () => void;
}

export class Inbox {
  private readonly queue: Packet[] = [];
  private queuedBytes = 0;
  private full = false;
  private reason: Error | null = null;
  private waiter: { resolve: (packet: Packet) => void; reject: (err: Error) => void } | null = null;
  private readonly failureListeners = new Set<(err: Error) => void>();

  constructor(private readonly options: InboxOptions = {}) {}

  /** The first failure, if any. */
  get failed(): Error | null {
    return this.reason;
  }

  push(packet: Packet): void {
    if (this.reason) return;
    if (this.waiter) {
      const waiter = this.waiter;
      this.waiter = null;
      waiter.resolve(packet);
      return;
    }
    this.queue.push(packet);
    this.queuedBytes += packet.payload.length;
    const { highWaterMark, onFull } = this.options;
    if (!this.full && highWaterMark !== undefined && this.queuedBytes > highWaterMark) {
      this.full = true;
      onFull?.();
    }
  }

  fail(err: Error): void {
    if (this.reason) return;
    this.reason = err;
    for (const listener of [...this.failureListeners]) listener(err);
    this.failureListeners.clear();
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(err);
  }

  /**
   * Settles like `work`, unless the inbox fails first; then with the failure, which also wins
   * over whatever `work` did as a side effect of it. (Not Promise.race against a long-lived
   * promise: every race would stay attached to it, and with it every value it resolved to.)
   */
  settle<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.reason) {
        work.catch(() => undefined);
        reject(this.reason);
        return;
      }
      const onFailure = (err: Error) => reject(err);
      this.failureListeners.add(onFailure);
      work.then(
        (value) => {
          this.failureListeners.delete(onFailure);
          if (this.reason) reject(this.reason);
          else resolve(value);
        },
        (err: unknown) => {
          this.failureListeners.delete(onFailure);
          reject(this.reason ?? err);
        },
      );
    });
  }

  /** Takes every queued packet at once (a new owner of the serial takes over from here). */
  drain(): Packet[] {
    const packets = this.queue.splice(0);
    this.queuedBytes = 0;
    return packets;
  }

  /** The next packet; a failure wins over packets still queued, so an abandoned stream stops at once. */
  next(): Promise<Packet> {
    if (this.reason) return Promise.reject(this.reason);
    const packet = this.queue.shift();
    if (packet) {
      this.queuedBytes -= packet.payload.length;
      if (this.full && this.queuedBytes <= (this.options.highWaterMark ?? 0) / 2) {
        this.full = false;
        this.options.onDrained?.();
      }
      return Promise.resolve(packet);
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }
}
