// The leader's round that puts the gateway's traffic into the stats history: at the sampling
// interval, the growth of the replicas' summed counters per Proxy becomes one history row each
// (server/store/gateway-stats.ts), and the Proxies that moved are announced, so their open pages
// refetch the chart (a Static Proxy has no sampled host whose `stats` message would reach it). A
// round that fails moves no mark: the next one writes its bytes.
import type { GatewayStatsStore } from '@/server/store/gateway-stats';
import { type LoopOptions, Ticker } from './ticker';

export interface GatewayHistoryOptions extends LoopOptions {
  store: Pick<GatewayStatsStore, 'record'>;
  /** told the Proxies a round wrote rows for */
  onRecorded?: (proxies: string[]) => void;
}

export class GatewayHistory {
  private readonly ticker: Ticker;

  constructor(private readonly options: GatewayHistoryOptions) {
    this.ticker = new Ticker({
      name: 'gateway-history',
      clock: options.clock,
      intervalMs: options.intervalMs,
      logger: options.logger,
      run: async () => void (await this.runOnce()),
    });
  }

  start(): void {
    // One interval in: the replicas' first flushes are in by then.
    this.ticker.start(true);
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** One round; returns the Proxies it wrote rows for. */
  async runOnce(): Promise<string[]> {
    const proxies = await this.options.store.record(this.options.clock.now());
    if (proxies.length > 0) this.options.onRecorded?.(proxies);
    return proxies;
  }
}
