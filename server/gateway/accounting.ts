// The gateway's live accounting: bytes, open tunnels, tunnels total and failures by cause, per Proxy
// and per gateway token, in this process. The server reports each connection's cumulative byte
// counts while it is open (at least every few seconds) and once more when it closes; only the
// growth since the last report is added, so the totals move during a long download and a final
// report is never counted twice. Direction: `in` is what came from the Proxy towards the crawler.
import type { Metrics } from '@/server/telemetry/metrics';

export interface ByteCounts {
  bytesIn: number;
  bytesOut: number;
}

export interface ProxyTraffic extends ByteCounts {
  proxy: string;
  open: number;
  tunnels: number;
  /** closed connections by failure cause */
  failures: Record<string, number>;
}

export interface TokenTraffic extends ByteCounts {
  token: string;
  open: number;
  tunnels: number;
}

export interface GatewaySnapshot {
  proxies: ProxyTraffic[];
  tokens: TokenTraffic[];
  /** connections refused before any Proxy was chosen, by cause */
  refusals: Record<string, number>;
}

interface OpenConnection extends ByteCounts {
  proxy: string;
  token: string;
}

type GatewayMetrics = Pick<Metrics, 'gatewayBytes' | 'gatewayTunnelsOpen' | 'gatewayConnections'>;

export class GatewayAccounting {
  private readonly metrics: GatewayMetrics;
  private readonly open = new Map<number, OpenConnection>();
  private readonly proxies = new Map<string, ProxyTraffic>();
  private readonly tokens = new Map<string, TokenTraffic>();
  private readonly refusals: Record<string, number> = {};

  constructor(options: { metrics: GatewayMetrics }) {
    this.metrics = options.metrics;
  }

  /** A connection now goes through PROXY for the holder of TOKEN (a gateway token's id). */
  opened(connection: { connection: number; proxy: string; token: string }): void {
    this.open.set(connection.connection, { proxy: connection.proxy, token: connection.token, bytesIn: 0, bytesOut: 0 });
    const proxy = this.proxyTraffic(connection.proxy);
    const token = this.tokenTraffic(connection.token);
    proxy.open += 1;
    proxy.tunnels += 1;
    token.open += 1;
    token.tunnels += 1;
    this.metrics.gatewayTunnelsOpen.set({ proxy: connection.proxy }, proxy.open);
  }

  /** The connection's byte counts so far (cumulative). */
  progress(connection: number, counts: ByteCounts): void {
    const entry = this.open.get(connection);
    if (entry) this.addGrowth(entry, counts);
  }

  /** The connection ended: its final counts, and `ok` or the cause of its failure. */
  closed(connection: number, final: ByteCounts & { result: string }): void {
    const entry = this.open.get(connection);
    if (!entry) return;
    this.addGrowth(entry, final);
    this.open.delete(connection);
    const proxy = this.proxyTraffic(entry.proxy);
    proxy.open -= 1;
    this.tokenTraffic(entry.token).open -= 1;
    if (final.result !== 'ok') proxy.failures[final.result] = (proxy.failures[final.result] ?? 0) + 1;
    this.metrics.gatewayTunnelsOpen.set({ proxy: entry.proxy }, proxy.open);
    this.metrics.gatewayConnections.inc({ proxy: entry.proxy, result: final.result });
  }

  /** A connection refused before a Proxy was chosen (bad credentials, nothing eligible...). */
  refused(cause: string): void {
    this.refusals[cause] = (this.refusals[cause] ?? 0) + 1;
    this.metrics.gatewayConnections.inc({ proxy: '', result: cause });
  }

  snapshot(): GatewaySnapshot {
    const byName = <T>(entries: Iterable<T>, key: (entry: T) => string) => [...entries].sort((a, b) => key(a).localeCompare(key(b)));
    return {
      proxies: byName(this.proxies.values(), (entry) => entry.proxy).map((entry) => ({ ...entry, failures: { ...entry.failures } })),
      tokens: byName(this.tokens.values(), (entry) => entry.token).map((entry) => ({ ...entry })),
      refusals: { ...this.refusals },
    };
  }

  private addGrowth(entry: OpenConnection, counts: ByteCounts): void {
    const grownIn = Math.max(0, counts.bytesIn - entry.bytesIn);
    const grownOut = Math.max(0, counts.bytesOut - entry.bytesOut);
    if (grownIn === 0 && grownOut === 0) return;
    entry.bytesIn += grownIn;
    entry.bytesOut += grownOut;
    for (const traffic of [this.proxyTraffic(entry.proxy), this.tokenTraffic(entry.token)]) {
      traffic.bytesIn += grownIn;
      traffic.bytesOut += grownOut;
    }
    this.metrics.gatewayBytes.inc({ proxy: entry.proxy, direction: 'in' }, grownIn);
    this.metrics.gatewayBytes.inc({ proxy: entry.proxy, direction: 'out' }, grownOut);
  }

  private proxyTraffic(name: string): ProxyTraffic {
    let traffic = this.proxies.get(name);
    if (!traffic) this.proxies.set(name, (traffic = { proxy: name, bytesIn: 0, bytesOut: 0, open: 0, tunnels: 0, failures: {} }));
    return traffic;
  }

  private tokenTraffic(name: string): TokenTraffic {
    let traffic = this.tokens.get(name);
    if (!traffic) this.tokens.set(name, (traffic = { token: name, bytesIn: 0, bytesOut: 0, open: 0, tunnels: 0 }));
    return traffic;
  }
}
