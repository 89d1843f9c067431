// Retention: provider health history and Proxy events older than their retention are pruned.
import type { Store } from '@/server/store';
import type { Logger } from '@/server/telemetry/logger';
import type { Clock } from './clock';
import { Ticker } from './ticker';

export interface HousekeepingOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  intervalMs: number;
  healthHistoryRetentionMs: number;
  eventRetentionMs: number;
}

export class Housekeeping {
  private readonly ticker: Ticker;

  constructor(private readonly options: HousekeepingOptions) {
    this.ticker = new Ticker({ name: 'housekeeping', clock: options.clock, intervalMs: options.intervalMs, logger: options.logger, run: async () => void this.prune() });
  }

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  prune(): { healthSamples: number; events: number } {
    const { store, clock } = this.options;
    const now = clock.now();
    const pruned = {
      healthSamples: store.health.pruneBefore(now - this.options.healthHistoryRetentionMs),
      events: store.events.pruneBefore(now - this.options.eventRetentionMs),
    };
    if (pruned.healthSamples + pruned.events > 0) this.options.logger.debug(pruned, 'pruned old health samples and events');
    return pruned;
  }
}
