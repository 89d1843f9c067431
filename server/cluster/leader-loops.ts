// The one place that decides which loops only the leader runs: every loop added here starts when
// this replica becomes leader and stops (its in-flight work aborted) when it steps down. A new
// leader-only loop is one `add` in the runtime.
export interface ControlLoop {
  start(): void;
  /** aborts what runs synchronously, then settles when it has ended */
  stop(): Promise<void>;
}

export class LeaderLoops {
  private readonly loops: Array<{ name: string; loop: ControlLoop }> = [];
  private running = false;
  /** the stop in progress, if any */
  private stopping: Promise<void> | undefined;

  constructor(private readonly onError: (name: string, err: unknown) => void) {}

  add(name: string, loop: ControlLoop): void {
    this.loops.push({ name, loop });
    if (this.running) loop.start();
  }

  get active(): boolean {
    return this.running;
  }

  /** Starts every loop: at once, or once a stop in progress has finished. */
  start(): Promise<void> {
    if (this.stopping) return this.stopping.then(() => this.start());
    if (!this.running) {
      this.running = true;
      for (const { loop } of this.loops) loop.start();
    }
    return Promise.resolve();
  }

  /** Every loop's stop is called before this returns (their aborts are synchronous); the promise waits for them. */
  stop(): Promise<void> {
    if (!this.running) return this.stopping ?? Promise.resolve();
    this.running = false;
    const stops = this.loops.map(({ name, loop }) => loop.stop().catch((err: unknown) => this.onError(name, err)));
    const stopping = Promise.all(stops).then(() => {
      if (this.stopping === stopping) this.stopping = undefined;
    });
    this.stopping = stopping;
    return stopping;
  }
}
