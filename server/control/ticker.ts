// A periodic loop that never overlaps itself: run, then wait the interval, then run again. Stop
// aborts the signal handed to the run in progress and waits for it to settle; a later start runs
// it again (a replica that lost leadership and won it back).
import type { Logger } from '@/server/telemetry/logger';
import type { Clock, TimerHandle } from './clock';

/** What every loop that runs on a Ticker is given for it: the clock, the interval and the logger. */
export interface LoopOptions {
  clock: Clock;
  intervalMs: number;
  logger: Logger;
}

export interface TickerOptions extends LoopOptions {
  name: string;
  run: (signal: AbortSignal) => Promise<void>;
}

export class Ticker {
  private timer: TimerHandle | undefined;
  private current: Promise<void> | undefined;
  private controller = new AbortController();
  private stopped = false;

  constructor(private readonly options: TickerOptions) {}

  /**
   * Starts the loop; the first run happens at once, after one interval with `delayFirst` true, or
   * after `delayFirst` ms when it is a number (a start that should not coincide with other loops').
   */
  start(delayFirst: boolean | number = false): void {
    if (this.stopped) {
      this.stopped = false;
      this.controller = new AbortController();
    }
    if (delayFirst === false || delayFirst === 0) void this.tick();
    else this.schedule(delayFirst === true ? this.options.intervalMs : delayFirst);
  }

  /** Runs now (waiting for a run in progress first); the regular schedule continues after it. */
  async runNow(): Promise<void> {
    await this.current;
    if (this.stopped) return;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.controller.abort(new Error(`${this.options.name} stopped`));
    await this.current;
  }

  private tick(): Promise<void> {
    const run = (async () => {
      try {
        await this.options.run(this.controller.signal);
      } catch (err) {
        if (!this.stopped) this.options.logger.error({ err, loop: this.options.name }, 'control loop run failed');
      }
    })();
    this.current = run.finally(() => {
      this.current = undefined;
      this.schedule();
    });
    return this.current;
  }

  private schedule(delayMs = this.options.intervalMs): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, delayMs);
  }
}
