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

export interface SessionTraffic extends ByteCounts {
  session: string;
  /** the Proxy its latest connection went through */
  proxy: string;
  open: number;
  tunnels: number;
}

export interface Refusal {
  /** epoch ms */
  at: number;
  client: string;
  cause: string;
  message: string;
}

export interface GatewaySnapshot {
  proxies: ProxyTraffic[];
  tokens: TokenTraffic[];
  /** the busiest sticky sessions, most bytes first */
  sessions: SessionTraffic[];
  /** connections refused before any Proxy was chosen, by cause */
  refusals: Record<string, number>;
  /** the last refusals, newest first */
  recentRefusals: Refusal[];
}

interface OpenConnection extends ByteCounts {
  proxy: string;
  token: string;
  session?: string;
}

/** Sessions remembered for the busiest list; beyond it the idle ones seen longest ago are dropped. */
const sessionsKept = 1000;
const busiestShown = 10;
const refusalsKept = 20;

type GatewayMetrics = Pick<Metrics, 'gatewayBytes' | 'gatewayTunnelsOpen' | 'gatewayConnections'>;

export class GatewayAccounting {
  private readonly metrics: GatewayMetrics;
  private readonly open = new Map<number, OpenConnection>();
  private readonly proxies = new Map<string, ProxyTraffic>();
  private readonly tokens = new Map<string, TokenTraffic>();
  private readonly sessions = new Map<string, SessionTraffic>();
  private readonly refusals: Record<string, number> = {};
  private readonly recentRefusals: Refusal[] = [];
  private readonly changed: () => void;

  /** `changed` hears of every change to the counters (the live feed's throttle). */
  constructor(options: { metrics: GatewayMetrics; changed?: () => void }) {
    this.metrics = options.metrics;
    this.changed = options.changed ?? (() => undefined);
  }

  /** A connection now goes through PROXY for the holder of TOKEN (a gateway token's id), in SESSION when sticky. */
  opened(connection: { connection: number; proxy: string; token: string; session?: string }): void {
    const { proxy: proxyName, token: tokenId, session } = connection;
    this.open.set(connection.connection, { proxy: proxyName, token: tokenId, ...(session ? { session } : {}), bytesIn: 0, bytesOut: 0 });
    const proxy = this.proxyTraffic(proxyName);
    for (const traffic of [proxy, this.tokenTraffic(tokenId), ...(session ? [this.sessionTraffic(session, proxyName)] : [])]) {
      traffic.open += 1;
      traffic.tunnels += 1;
    }
    this.metrics.gatewayTunnelsOpen.set({ proxy: connection.proxy }, proxy.open);
    this.changed();
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
    if (entry.session) this.sessionTraffic(entry.session, entry.proxy).open -= 1;
    if (final.result !== 'ok') proxy.failures[final.result] = (proxy.failures[final.result] ?? 0) + 1;
    this.metrics.gatewayTunnelsOpen.set({ proxy: entry.proxy }, proxy.open);
    this.metrics.gatewayConnections.inc({ proxy: entry.proxy, result: final.result });
    this.changed();
  }

  /** A connection refused before a Proxy was chosen (bad credentials, nothing eligible...). */
  refused(refusal: Refusal): void {
    this.refusals[refusal.cause] = (this.refusals[refusal.cause] ?? 0) + 1;
    this.recentRefusals.unshift(refusal);
    this.recentRefusals.length = Math.min(this.recentRefusals.length, refusalsKept);
    this.metrics.gatewayConnections.inc({ proxy: '', result: refusal.cause });
    this.changed();
  }

  snapshot(): GatewaySnapshot {
    const byName = <T>(entries: Iterable<T>, key: (entry: T) => string) => [...entries].sort((a, b) => key(a).localeCompare(key(b)));
    return {
      proxies: byName(this.proxies.values(), (entry) => entry.proxy).map((entry) => ({ ...entry, failures: { ...entry.failures } })),
      tokens: byName(this.tokens.values(), (entry) => entry.token).map((entry) => ({ ...entry })),
      sessions: [...this.sessions.values()]
        .sort((a, b) => b.bytesIn + b.bytesOut - (a.bytesIn + a.bytesOut))
        .slice(0, busiestShown)
        .map((entry) => ({ ...entry })),
      refusals: { ...this.refusals },
      recentRefusals: this.recentRefusals.map((entry) => ({ ...entry })),
    };
  }

  private addGrowth(entry: OpenConnection, counts: ByteCounts): void {
    const grownIn = Math.max(0, counts.bytesIn - entry.bytesIn);
    const grownOut = Math.max(0, counts.bytesOut - entry.bytesOut);
    if (grownIn === 0 && grownOut === 0) return;
    entry.bytesIn += grownIn;
    entry.bytesOut += grownOut;
    const session = entry.session ? [this.sessionTraffic(entry.session, entry.proxy)] : [];
    for (const traffic of [this.proxyTraffic(entry.proxy), this.tokenTraffic(entry.token), ...session]) {
      traffic.bytesIn += grownIn;
      traffic.bytesOut += grownOut;
    }
    this.metrics.gatewayBytes.inc({ proxy: entry.proxy, direction: 'in' }, grownIn);
    this.metrics.gatewayBytes.inc({ proxy: entry.proxy, direction: 'out' }, grownOut);
    this.changed();
  }

  private proxyTraffic(name: string): ProxyTraffic {
    let traffic = this.proxies.get(name);
    if (!traffic) this.proxies.set(name, (traffic = { proxy: name, bytesIn: 0, bytesOut: 0, open: 0, tunnels: 0, failures: {} }));
    return traffic;
  }

  /** The session's entry, moved to the newest end of the map (Map keeps insertion order) and on PROXY. */
  private sessionTraffic(name: string, proxy: string): SessionTraffic {
    const traffic = this.sessions.get(name) ?? { session: name, proxy, bytesIn: 0, bytesOut: 0, open: 0, tunnels: 0 };
    traffic.proxy = proxy;
    this.sessions.delete(name);
    this.sessions.set(name, traffic);
    if (this.sessions.size > sessionsKept) this.forgetOldestIdleSession();
    return traffic;
  }

  private forgetOldestIdleSession(): void {
    for (const [name, traffic] of this.sessions) {
      if (traffic.open === 0) {
        this.sessions.delete(name);
        return;
      }
    }
  }

  private tokenTraffic(name: string): TokenTraffic {
    let traffic = this.tokens.get(name);
    if (!traffic) this.tokens.set(name, (traffic = { token: name, bytesIn: 0, bytesOut: 0, open: 0, tunnels: 0 }));
    return traffic;
  }
}
