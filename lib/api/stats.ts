// Stats history (GET /api/proxies/{name}/stats, /api/providers/{provider}/hosts/{host}/stats,
// /api/stats/traffic): rates the server computed from libvirt's counters, one averaged point per
// step of the window. A null value is an interval without a rate (the first sample, a restart).
// A Proxy's stats also carry the gateway's traffic through it (server/store/gateway-stats.ts).
import { z } from 'zod';

export const statsWindows = ['1h', '24h', '7d'] as const;
export type StatsWindowName = (typeof statsWindows)[number];

const rate = z.number().nullable();

export const vmPointSchema = z.strictObject({
  at: z.string(),
  cpuPercent: rate,
  memoryBytes: rate,
  memoryTotalBytes: rate,
  netRxBps: rate,
  netTxBps: rate,
  diskReadBps: rate,
  diskWriteBps: rate,
});
export type VmPoint = z.infer<typeof vmPointSchema>;

/** A step of the Proxy's traffic through the gateway: `inBps` came from the Proxy towards the crawlers. */
export const gatewayPointSchema = z.strictObject({ at: z.string(), inBps: z.number(), outBps: z.number() });
export type GatewayPoint = z.infer<typeof gatewayPointSchema>;

export const proxyStatsSchema = z.strictObject({
  proxy: z.string(),
  window: z.enum(statsWindows),
  stepSeconds: z.number(),
  points: z.array(vmPointSchema),
  /** the gateway's traffic through this Proxy, one point per complete step; empty when none moved in the window */
  gateway: z.array(gatewayPointSchema),
});
export type ProxyStats = z.infer<typeof proxyStatsSchema>;

export const hostPointSchema = z.strictObject({ at: z.string(), cpuPercent: rate, memoryUsedBytes: rate, memoryTotalBytes: rate });
export type HostPoint = z.infer<typeof hostPointSchema>;

export const domainSparkPointSchema = z.strictObject({ at: z.string(), cpuPercent: rate, netRxBps: rate, netTxBps: rate });
export const domainSeriesSchema = z.strictObject({ domain: z.string(), proxy: z.string().optional(), points: z.array(domainSparkPointSchema) });
export type DomainSeries = z.infer<typeof domainSeriesSchema>;

export const hostStatsSchema = z.strictObject({
  provider: z.string(),
  host: z.string(),
  window: z.enum(statsWindows),
  stepSeconds: z.number(),
  points: z.array(hostPointSchema),
  /** per-VM CPU and traffic of the Proxies' VMs on the host, one point per minute at least */
  domains: z.array(domainSeriesSchema),
});
export type HostStats = z.infer<typeof hostStatsSchema>;

export const proxyTrafficSchema = z.strictObject({ proxy: z.string(), rxBytes: z.number(), txBytes: z.number() });
export type ProxyTraffic = z.infer<typeof proxyTrafficSchema>;

/** Every Proxy's traffic together over the last hour, per minute, and the busiest Proxies. */
export const trafficOverviewSchema = z.strictObject({
  windowSeconds: z.number(),
  stepSeconds: z.number(),
  rxBytes: z.number(),
  txBytes: z.number(),
  points: z.array(z.strictObject({ at: z.string(), rxBps: z.number(), txBps: z.number() })),
  busiest: z.array(proxyTrafficSchema),
});
export type TrafficOverview = z.infer<typeof trafficOverviewSchema>;
