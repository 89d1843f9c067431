// The gateway as the runtime runs it, on every replica: the network server (server.ts) choosing
// among a snapshot of the fleet (every Proxy as the API shows it, and the ProxySets that exist),
// refreshed on each Proxy write and every few seconds, because a choice is made per connection
// and must not wait on the store. A proxy whose dial failed is suspect (no new tunnels) and
// probed at once, until a newer probe than the failure says how it is. A Proxy being deleted
// drains: no new tunnels at once, and the deletion waits (drain()) until its open tunnels here
// end or GATEWAY_DRAIN passes, then closes what is left before its VM goes, kept-alive idle
// connections to it included; those to a Proxy no longer in the fleet close on the next read. The
// page's totals are summed over the replicas through the store (traffic-sync.ts); while traffic
// moves here, the live feed hears `gateway` at most once a second.
import type { GatewayView } from '@/lib/api/gateway';
import type { ProxyView } from '@/lib/api/proxies';
import type { Clock } from '@/server/control/clock';
import { errorMessage } from '@/lib/error-message';
import type { Logger } from '@/server/telemetry/logger';
import type { GatewayTrafficStore } from '@/server/store/gateway-traffic';
import type { Metrics } from '@/server/telemetry/metrics';
import { GatewayAccounting } from './accounting';
import { type ChangeThrottle, changeThrottle } from './change-throttle';
import { chooseProxy, type Unavailability } from './choose';
import { usernameRefusal } from './refusals';
import { TunnelRotation } from './rotation';
import { type GatewayChoice, GatewayServer } from './server';
import { GatewayTrafficSync, type SharedTotals } from './traffic-sync';
import { GatewayUsernameError, parseUsername } from './username';
import { VerifiedTokens } from './verified-tokens';

export interface GatewayServiceOptions {
  host: string;
  /** 0: no gateway */
  port: number;
  drainMs: number;
  /** every Proxy as the API shows it */
  proxies: () => Promise<ProxyView[]>;
  /** names of the ProxySets that exist */
  setNames: () => Promise<string[]>;
  /** calls back on every Proxy write; returns the unsubscribe */
  watchProxies: (listener: () => void) => () => void;
  /** a gateway token's id and name, or undefined */
  verifyToken: (token: string) => Promise<{ id: string; name: string } | undefined>;
  /** token id -> name, for the page */
  tokenNames: () => Promise<Map<string, string>>;
  /** asks the monitor to probe a proxy now */
  probeNow: (proxy: string) => void;
  metrics: Metrics;
  logger: Logger;
  clock: Clock;
  /** how often the fleet snapshot is read when no write announced a change; default 5 s */
  refreshMs?: number;
  /** the counters shared with the other replicas; without it the page shows this replica's alone */
  traffic?: {
    store: GatewayTrafficStore;
    replicaId: string;
    /** a replica whose heartbeat is older no longer counts its open tunnels (LEADER_LEASE) */
    aliveMs: number;
    /** default 5 s */
    flushMs?: number;
  };
  /** publishes the live feed's `gateway` message */
  announce?: () => void;
}

interface Fleet {
  proxies: ProxyView[];
  sets: Set<string>;
}

/** How long a failed proxy stays suspect when no probe reports on it. */
const suspectMaxMs = 60_000;
const drainPollMs = 250;
/** The live feed hears of traffic at most this often. */
const announceMs = 1_000;
/** how long a verified gateway token passes without the store (a revoked one: at most this long) */
const tokenRecheckMs = 1_000;

export class GatewayService {
  private readonly accounting: GatewayAccounting;
  private readonly announcer: ChangeThrottle;
  private readonly sync: GatewayTrafficSync | undefined;
  private readonly rotation = new TunnelRotation();
  private readonly server: GatewayServer | undefined;
  private fleet: Fleet = { proxies: [], sets: new Set() };
  /** proxy -> when its dial failed (epoch ms) */
  private readonly suspects = new Map<string, number>();
  private readonly draining = new Set<string>();
  private listenError: string | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;

  constructor(private readonly options: GatewayServiceOptions) {
    this.announcer = changeThrottle({ intervalMs: announceMs, send: () => options.announce?.() });
    this.accounting = new GatewayAccounting({ metrics: options.metrics, changed: this.announcer.changed });
    if (options.traffic) {
      const { store, replicaId, aliveMs, flushMs } = options.traffic;
      const logger = options.logger;
      this.sync = new GatewayTrafficSync({
        store,
        accounting: this.accounting,
        replicaId,
        aliveMs,
        clock: options.clock,
        logger,
        ...(flushMs ? { flushMs } : {}),
      });
    }
    if (options.port === 0) return;
    const verifiedTokens = new VerifiedTokens({ verify: options.verifyToken, ttlMs: tokenRecheckMs, now: () => options.clock.now() });
    this.server = new GatewayServer({
      host: options.host,
      port: options.port,
      logger: options.logger,
      authenticate: async (_username, password) => {
        const token = await verifiedTokens.verify(password);
        return token && { tokenId: token.id };
      },
      choose: ({ username, exclude }) => this.choose(username, exclude),
      observer: this.accounting,
      failed: (proxy) => this.markSuspect(proxy),
      refused: (refusal) => this.accounting.refused(refusal),
    });
  }

  /** Listens when a port is set; a port in use is logged and shown on the page, the dashboard runs on. */
  async start(): Promise<void> {
    await this.sync?.start();
    if (!this.server) return;
    this.unwatch = this.options.watchProxies(() => void this.refresh());
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs ?? 5_000);
    this.timer.unref();
    try {
      await this.server.start();
      this.listenError = undefined;
    } catch (err) {
      this.listenError = `cannot listen on ${this.options.host}:${this.options.port}: ${errorMessage(err)}; set GATEWAY_PORT to a free port (0 turns the gateway off)`;
      this.options.logger.error({ host: this.options.host, port: this.options.port, error: errorMessage(err) }, 'gateway not started');
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unwatch?.();
    await this.server?.stop();
    this.announcer.stop();
    // After the server: its tunnels are closed by now, so the last flush says none is open here.
    await this.sync?.stop();
  }

  /**
   * A Proxy is being deleted: no new tunnels through it, and resolves once its open tunnels here
   * have ended, or GATEWAY_DRAIN passed (then closes them), or SIGNAL aborted.
   */
  async drain(proxy: string, signal: AbortSignal): Promise<void> {
    if (!this.server) return;
    this.draining.add(proxy);
    const until = this.options.clock.now() + this.options.drainMs;
    while (this.server.openTunnels(proxy) > 0 && this.options.clock.now() < until && !signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, drainPollMs));
    }
    const closed = this.server.closeTunnels(proxy);
    if (closed > 0) this.options.logger.info({ proxy, closed }, 'gateway drain over: closed the tunnels left');
  }

  async view(): Promise<GatewayView> {
    const snapshot = this.accounting.snapshot();
    const totals = await this.sharedTotals(snapshot);
    const names = await this.options.tokenNames();
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      enabled: this.server !== undefined,
      listening: this.server !== undefined && this.listenError === undefined,
      ...(this.listenError ? { error: this.listenError } : {}),
      host: this.options.host,
      port: this.server?.port || this.options.port,
      drainMs: this.options.drainMs,
      proxies: totals.proxies,
      tokens: totals.tokens.map((entry) => ({ ...entry, ...(names.has(entry.token) ? { name: names.get(entry.token) } : {}) })),
      sessions: snapshot.sessions,
      refusals: snapshot.recentRefusals.map((refusal) => ({ ...refusal, at: iso(refusal.at) })),
    };
  }

  /** The totals over every replica; this replica's alone when the store cannot be read (logged). */
  private async sharedTotals(local: SharedTotals): Promise<SharedTotals> {
    if (!this.sync) return local;
    try {
      return await this.sync.totals();
    } catch (err) {
      this.options.logger.warn({ error: errorMessage(err) }, "gateway counters: could not read the other replicas' from the store; showing this replica's");
      return local;
    }
  }

  private choose(username: string, exclude: Set<string>): GatewayChoice {
    let selector;
    try {
      selector = parseUsername(username);
    } catch (err) {
      if (!(err instanceof GatewayUsernameError)) throw err;
      const refusal = usernameRefusal(err);
      return { refusal: refusal.message, status: refusal.status, cause: refusal.code };
    }
    const choice = chooseProxy({
      selector,
      proxies: this.fleet.proxies,
      sets: this.fleet.sets,
      tried: [...exclude],
      unavailable: this.unavailable(),
      rotation: this.rotation,
      openTunnels: (proxy) => this.server?.openTunnels(proxy) ?? 0,
    });
    if (!choice.ok) return { refusal: choice.refusal.message, status: choice.refusal.status, cause: choice.refusal.code };
    return { proxy: choice.proxy.name, upstreamUrl: choice.proxy.url, ...(selector.session ? { session: selector.session } : {}) };
  }

  private unavailable(): Map<string, Unavailability> {
    const unavailable = new Map<string, Unavailability>();
    for (const proxy of this.suspects.keys()) unavailable.set(proxy, 'suspect');
    for (const proxy of this.draining) unavailable.set(proxy, 'draining');
    return unavailable;
  }

  private markSuspect(proxy: string): void {
    this.suspects.set(proxy, this.options.clock.now());
    this.options.probeNow(proxy);
  }

  /** Reads the fleet; a write during a read reads it once more after (no write is missed). */
  private refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        try {
          const [proxies, sets] = await Promise.all([this.options.proxies(), this.options.setNames()]);
          this.fleet = { proxies, sets: new Set(sets) };
          this.clearSettled(proxies);
          this.server?.retainProxies(new Set(proxies.map((proxy) => proxy.name)));
        } catch (err) {
          this.options.logger.warn({ error: errorMessage(err) }, 'gateway could not read the fleet; choosing from the last read');
        }
      } while (this.refreshAgain);
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Suspects a newer probe reported on (or that waited too long), and drains of Proxies now gone. */
  private clearSettled(proxies: ProxyView[]): void {
    const byName = new Map(proxies.map((proxy) => [proxy.name, proxy]));
    const now = this.options.clock.now();
    for (const [name, since] of this.suspects) {
      const probedAt = Date.parse(byName.get(name)?.status.probedAt ?? '');
      if (!byName.has(name) || probedAt > since || now - since > suspectMaxMs) this.suspects.delete(name);
    }
    for (const name of this.draining) if (!byName.has(name)) this.draining.delete(name);
  }
}
