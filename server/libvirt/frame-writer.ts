// The outbound side of one RPC connection: whole frames onto the transport, with backpressure
// (a write resolves when the transport can take more) and coalescing (frames queued in the same
// tick leave in one write, so a burst of pipelined calls costs one SSH packet instead of one each).
import type { Duplex } from 'node:stream';

export class FrameWriter {
  /** Set by every write; the connection clears it when data arrives (see its ACK nudge). */
  wroteSinceData = false;
  private queued: Buffer[] = [];
  private drainWaiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];

  /** `endReason`: why the connection is over, or null while it is usable. */
  constructor(
    private readonly transport: Duplex,
    private readonly endReason: () => Error | null,
  ) {
    transport.on('drain', () => this.settleDrainWaiters());
  }

  /** Writes whole frames; resolves when the transport can take more (backpressure for streams). */
  write(buffers: Buffer[]): Promise<void> {
    const ended = this.endReason();
    if (ended) return Promise.reject(ended);
    this.wroteSinceData = true;
    let writable = true;
    for (const buffer of buffers) writable = this.transport.write(buffer);
    if (writable) return Promise.resolve();
    return new Promise((resolve, reject) => this.drainWaiters.push({ resolve, reject }));
  }

  /** Queues a frame for this tick's one write. A failed write ends the connection, which fails the calls. */
  enqueue(frame: Buffer): void {
    this.queued.push(frame);
    if (this.queued.length > 1) return;
    queueMicrotask(() => {
      const frames = this.queued;
      this.queued = [];
      if (this.endReason()) return;
      this.write([frames.length === 1 ? frames[0]! : Buffer.concat(frames)]).catch(() => undefined);
    });
  }

  /** The connection ended: every write still waiting for a drain fails with `reason`. */
  fail(reason: Error): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter.reject(reason);
  }

  private settleDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter.resolve();
  }
}
