// Stats history as the API serves it: a Proxy's VM and the gateway's traffic through it over a
// window, a host with its Proxies' VMs, and the overview's traffic of every Proxy over the last
// hour with the busiest ones. Points are read from the store (server/store/stats-history.ts,
// gateway-stats.ts), one point per step.
import type { HostStats, ProxyStats, StatsWindowName, TrafficOverview } from '@/lib/api/stats';
import { ProxyNotFoundError } from '@/server/control/errors';
import type { Runtime } from '@/server/runtime';
import { GatewayStatsStore } from '@/server/store/gateway-stats';
import { windowSpans } from '@/server/store/stats-history';
import { ResourceNotFoundError, UnsupportedOperationError } from '@/server/errors';
import { runningProvider } from './providers-api';

const minute = 60_000;
const busiestCount = 5;
const iso = (ms: number) => new Date(ms).toISOString();

function windowOf(runtime: Runtime, window: StatsWindowName): { sinceMs: number; stepMs: number } {
  const { spanMs, stepMs } = windowSpans[window];
  const nowMs = Date.now();
  return { sinceMs: Math.floor((nowMs - spanMs) / stepMs) * stepMs, stepMs: Math.max(stepMs, runtime.settings.statsSampleIntervalMs) };
}

export async function proxyStats(runtime: Runtime, query: { name: string; window: StatsWindowName }): Promise<ProxyStats> {
  const record = await runtime.store.proxies.get(query.name);
  if (!record) throw new ProxyNotFoundError(query.name);
  const { sinceMs, stepMs } = windowOf(runtime, query.window);
  const points = (await runtime.store.stats.proxyHistory({ proxyUid: record.uid, sinceMs, stepMs })).map(({ atMs, ...values }) => ({
    at: iso(atMs),
    ...values,
  }));
  const gateway = (await new GatewayStatsStore(runtime.store.sql).proxyHistory({ proxyUid: record.uid, sinceMs, stepMs, nowMs: Date.now() })).map(
    ({ atMs, ...values }) => ({ at: iso(atMs), ...values }),
  );
  return { proxy: record.name, window: query.window, stepSeconds: stepMs / 1000, points, gateway } satisfies ProxyStats;
}

export async function hostStats(runtime: Runtime, query: { provider: string; host: string; window: StatsWindowName }): Promise<HostStats> {
  const provider = runningProvider(runtime, query.provider);
  if (!provider.stats) throw new UnsupportedOperationError(`provider ${JSON.stringify(query.provider)} is of type ${provider.type}, which has no host stats`);
  if (!provider.stats.hosts().includes(query.host)) throw new ResourceNotFoundError('host', query.host);
  const { sinceMs, stepMs } = windowOf(runtime, query.window);
  const target = { provider: query.provider, target: query.host, sinceMs };
  const names = new Map((await runtime.store.proxies.list()).map((record) => [record.uid, record.name]));
  const domains = (await runtime.store.stats.domainHistories({ ...target, stepMs: Math.max(stepMs, minute) })).map((series) => {
    const proxy = names.get(series.proxyUid);
    return { domain: series.domain, ...(proxy ? { proxy } : {}), points: series.points.map(({ atMs, ...values }) => ({ at: iso(atMs), ...values })) };
  });
  return {
    provider: query.provider,
    host: query.host,
    window: query.window,
    stepSeconds: stepMs / 1000,
    points: (await runtime.store.stats.hostHistory({ ...target, stepMs })).map(({ atMs, ...values }) => ({ at: iso(atMs), ...values })),
    domains,
  } satisfies HostStats;
}

export async function trafficOverview(runtime: Runtime): Promise<TrafficOverview> {
  const { sinceMs } = windowOf(runtime, '1h');
  const names = new Map((await runtime.store.proxies.list()).map((record) => [record.uid, record.name]));
  const perProxy = await runtime.store.stats.trafficByProxy(sinceMs);
  const busiest = perProxy.flatMap(({ proxyUid, rxBytes, txBytes }) => {
    const proxy = names.get(proxyUid);
    return proxy ? [{ proxy, rxBytes, txBytes }] : [];
  });
  return {
    windowSeconds: windowSpans['1h'].spanMs / 1000,
    stepSeconds: minute / 1000,
    rxBytes: perProxy.reduce((total, entry) => total + entry.rxBytes, 0),
    txBytes: perProxy.reduce((total, entry) => total + entry.txBytes, 0),
    points: (await runtime.store.stats.totalTraffic({ sinceMs, stepMs: minute })).map(({ atMs, ...values }) => ({ at: iso(atMs), ...values })),
    busiest: busiest.slice(0, busiestCount),
  } satisfies TrafficOverview;
}
