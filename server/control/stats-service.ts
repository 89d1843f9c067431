// Stats history as the API serves it: a Proxy's VM and the gateway's traffic through it over a
// window, a host with its Proxies' VMs, and the overview's traffic of every Proxy over the last
// hour with the busiest ones. Points are read from the store (server/store/stats-history.ts,
// gateway-stats.ts), one point per step.
import type { HostStats, ProxyStats, StatsWindowName, TrafficOverview } from '@/lib/api/stats';
import { ResourceNotFoundError, UnsupportedOperationError } from '@/server/errors';
import type { Provider } from '@/server/providers/contract';
import type { Store } from '@/server/store';
import { GatewayStatsStore } from '@/server/store/gateway-stats';
import { windowSpans } from '@/server/store/stats-history';
import type { Clock } from './clock';
import { ProxyNotFoundError } from './errors';

const minute = 60_000;
const busiestCount = 5;
const iso = (ms: number) => new Date(ms).toISOString();
const withTime = <T extends { atMs: number }>({ atMs, ...values }: T) => ({ at: iso(atMs), ...values });

export interface StatsServiceOptions {
  store: Pick<Store, 'proxies' | 'stats' | 'sql'>;
  /** STATS_SAMPLE_INTERVAL: no step is finer than the samples */
  sampleIntervalMs: number;
  /** the running provider of that name (404 when not configured, 503 when not running) */
  running(name: string): Provider;
  clock: Clock;
}

export class StatsService {
  private readonly gateway: GatewayStatsStore;

  constructor(private readonly options: StatsServiceOptions) {
    this.gateway = new GatewayStatsStore(options.store.sql);
  }

  async proxy(query: { name: string; window: StatsWindowName }): Promise<ProxyStats> {
    const { store, clock } = this.options;
    const record = await store.proxies.get(query.name);
    if (!record) throw new ProxyNotFoundError(query.name);
    const { sinceMs, stepMs } = this.windowOf(query.window);
    const points = (await store.stats.proxyHistory({ proxyUid: record.uid, sinceMs, stepMs })).map(withTime);
    const gateway = (await this.gateway.proxyHistory({ proxyUid: record.uid, sinceMs, stepMs, nowMs: clock.now() })).map(withTime);
    return { proxy: record.name, window: query.window, stepSeconds: stepMs / 1000, points, gateway } satisfies ProxyStats;
  }

  async host(query: { provider: string; host: string; window: StatsWindowName }): Promise<HostStats> {
    const { store } = this.options;
    const provider = this.options.running(query.provider);
    if (!provider.stats) throw new UnsupportedOperationError(`provider ${JSON.stringify(query.provider)} is of type ${provider.type}, which has no host stats`);
    if (!provider.stats.hosts().includes(query.host)) throw new ResourceNotFoundError('host', query.host);
    const { sinceMs, stepMs } = this.windowOf(query.window);
    const target = { provider: query.provider, target: query.host, sinceMs };
    const names = await this.proxyNames();
    const domains = (await store.stats.domainHistories({ ...target, stepMs: Math.max(stepMs, minute) })).map((series) => {
      const proxy = names.get(series.proxyUid);
      return { domain: series.domain, ...(proxy ? { proxy } : {}), points: series.points.map(withTime) };
    });
    return {
      provider: query.provider,
      host: query.host,
      window: query.window,
      stepSeconds: stepMs / 1000,
      points: (await store.stats.hostHistory({ ...target, stepMs })).map(withTime),
      domains,
    } satisfies HostStats;
  }

  async traffic(): Promise<TrafficOverview> {
    const { store } = this.options;
    const { sinceMs } = this.windowOf('1h');
    const names = await this.proxyNames();
    const perProxy = await store.stats.trafficByProxy(sinceMs);
    const busiest = perProxy.flatMap(({ proxyUid, rxBytes, txBytes }) => {
      const proxy = names.get(proxyUid);
      return proxy ? [{ proxy, rxBytes, txBytes }] : [];
    });
    return {
      windowSeconds: windowSpans['1h'].spanMs / 1000,
      stepSeconds: minute / 1000,
      rxBytes: perProxy.reduce((total, entry) => total + entry.rxBytes, 0),
      txBytes: perProxy.reduce((total, entry) => total + entry.txBytes, 0),
      points: (await store.stats.totalTraffic({ sinceMs, stepMs: minute })).map(withTime),
      busiest: busiest.slice(0, busiestCount),
    } satisfies TrafficOverview;
  }

  private windowOf(window: StatsWindowName): { sinceMs: number; stepMs: number } {
    const { spanMs, stepMs } = windowSpans[window];
    const nowMs = this.options.clock.now();
    return { sinceMs: Math.floor((nowMs - spanMs) / stepMs) * stepMs, stepMs: Math.max(stepMs, this.options.sampleIntervalMs) };
  }

  private async proxyNames(): Promise<Map<string, string>> {
    return new Map((await this.options.store.proxies.list()).map((record) => [record.uid, record.name]));
  }
}
