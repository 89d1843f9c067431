// Retention: provider health history, probe history and Proxy events older than their retention
// are pruned; the two histories keep every sample of the last day and one per bucket before that.
// VM and host stats are consolidated like an RRD (server/store/stats-history.ts).
import type { Store } from '@/server/store';
import { type LoopOptions, Ticker } from './ticker';

/** The last day of history keeps every sample; older ones one per bucket. */
export const fullResolutionMs = 24 * 60 * 60 * 1000;
export const downsampleBucketMs = 5 * 60 * 1000;

export interface HousekeepingOptions extends LoopOptions {
  store: Store;
  healthHistoryRetentionMs: number;
  eventRetentionMs: number;
}

export class Housekeeping {
  private readonly ticker: Ticker;

  constructor(private readonly options: HousekeepingOptions) {
    this.ticker = new Ticker({
      name: 'housekeeping',
      clock: options.clock,
      intervalMs: options.intervalMs,
      logger: options.logger,
      run: async () => void this.prune(),
    });
  }

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  async prune(): Promise<{ healthSamples: number; probeSamples: number; events: number; statsRows: number }> {
    const { store, clock } = this.options;
    const now = clock.now();
    const historyBefore = now - this.options.healthHistoryRetentionMs;
    const thinBefore = now - fullResolutionMs;
    const pruned = {
      healthSamples: (await store.health.pruneBefore(historyBefore)) + (await store.health.downsampleBefore(thinBefore, downsampleBucketMs)),
      probeSamples: (await store.probes.pruneBefore(historyBefore)) + (await store.probes.downsampleBefore(thinBefore, downsampleBucketMs)),
      events: await store.events.pruneBefore(now - this.options.eventRetentionMs),
      statsRows: await store.stats.consolidate(now),
    };
    if (pruned.healthSamples + pruned.probeSamples + pruned.events + pruned.statsRows > 0)
      this.options.logger.debug(pruned, 'pruned old health samples, probes, events and stats');
    return pruned;
  }
}
