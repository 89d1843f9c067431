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
  /** Rejects with the failure once there is one; for racing against other waits. */
  readonly failure: Promise<never>;
  private readonly queue: Packet[] = [];
  private queuedBytes = 0;
  private full = false;
  private reason: Error | null = null;
  private waiter: { resolve: (packet: Packet) => void; reject: (err: Error) => void } | null = null;
  private rejectFailure!: (err: Error) => void;

  constructor(private readonly options: InboxOptions = {}) {
    this.failure = new Promise<never>((_, reject) => (this.rejectFailure = reject));
    this.failure.catch(() => undefined); // observed through `reason` when nobody races it
  }

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
    this.rejectFailure(err);
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(err);
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
