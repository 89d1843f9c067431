// The gateway's counters shared with the other replicas through the store (gateway-traffic.ts):
// every few seconds, and at stop, this replica adds what its gateway moved since its last flush,
// in one statement, and nothing when nothing moved; the totals it answers are the store's sums
// with what moved here since, so this replica's own traffic shows without waiting for a flush.
// What a failed flush did not write stays pending and goes with the next. Flushes and reads take
// turns, so a read never counts a flush in flight twice (or not at all).
import type { Clock } from '@/server/control/clock';
import { errorMessage } from '@/lib/error-message';
import type { GatewayTrafficStore, TrafficDelta, TrafficKind } from '@/server/store/gateway-traffic';
import type { Logger } from '@/server/telemetry/logger';
import type { GatewayAccounting, ProxyTraffic, TokenTraffic } from './accounting';

export interface TrafficSyncOptions {
  store: GatewayTrafficStore;
  accounting: Pick<GatewayAccounting, 'snapshot'>;
  replicaId: string;
  clock: Pick<Clock, 'now'>;
  /** a replica whose heartbeat is older than this no longer counts its open tunnels (LEADER_LEASE) */
  aliveMs: number;
  /** default 5 s */
  flushMs?: number;
  logger: Logger;
}

export interface SharedTotals {
  proxies: ProxyTraffic[];
  tokens: TokenTraffic[];
}

type Counts = Omit<TrafficDelta, 'kind' | 'name' | 'cause'>;
type Keyed = Map<string, TrafficDelta>;

const keyOf = (row: Pick<TrafficDelta, 'kind' | 'name' | 'cause'>) => JSON.stringify([row.kind, row.name, row.cause]);
const zero: Counts = { bytesIn: 0, bytesOut: 0, connections: 0, open: 0 };

/** This process's counters as store rows (cumulative since it started). */
function localRows(accounting: Pick<GatewayAccounting, 'snapshot'>): Keyed {
  const snapshot = accounting.snapshot();
  const rows: Keyed = new Map();
  const put = (row: TrafficDelta) => rows.set(keyOf(row), row);
  for (const proxy of snapshot.proxies) {
    put({ kind: 'proxy', name: proxy.proxy, cause: '', bytesIn: proxy.bytesIn, bytesOut: proxy.bytesOut, connections: proxy.tunnels, open: proxy.open });
    for (const [cause, count] of Object.entries(proxy.failures)) put({ kind: 'failure', name: proxy.proxy, cause, ...zero, connections: count });
  }
  for (const token of snapshot.tokens) {
    put({ kind: 'token', name: token.token, cause: '', bytesIn: token.bytesIn, bytesOut: token.bytesOut, connections: token.tunnels, open: token.open });
  }
  return rows;
}

/** What moved in `now` since `flushed`, with `now`'s open count. */
function difference(now: TrafficDelta, flushed: Counts | undefined): TrafficDelta {
  const base = flushed ?? zero;
  return {
    ...now,
    bytesIn: now.bytesIn - base.bytesIn,
    bytesOut: now.bytesOut - base.bytesOut,
    connections: now.connections - base.connections,
  };
}

export class GatewayTrafficSync {
  /** this process's counters as of its last successful flush */
  private flushed: Keyed = new Map();
  private turn: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TrafficSyncOptions) {}

  /** Folds away the rows of replicas gone (and of a previous process under this id), then flushes every few seconds. */
  async start(): Promise<void> {
    await this.inTurn(async () => {
      try {
        await this.options.store.retire({ replicaId: this.options.replicaId, aliveSinceMs: this.aliveSinceMs() });
      } catch (err) {
        this.options.logger.warn({ error: errorMessage(err) }, 'gateway counters: could not fold the rows of replicas gone; trying at the next start');
      }
    });
    this.timer = setInterval(() => void this.flush(), this.options.flushMs ?? 5_000);
    this.timer.unref();
  }

  /** The last flush. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Adds what moved since the last flush (one statement; none when nothing moved). Never throws. */
  flush(): Promise<void> {
    return this.inTurn(async () => {
      const now = localRows(this.options.accounting);
      const deltas = [...now.entries()]
        .map(([key, row]) => ({ delta: difference(row, this.flushed.get(key)), before: this.flushed.get(key) }))
        .filter(({ delta, before }) => delta.bytesIn > 0 || delta.bytesOut > 0 || delta.connections > 0 || delta.open !== (before?.open ?? 0))
        .map(({ delta }) => delta);
      try {
        await this.options.store.add({ replicaId: this.options.replicaId, atMs: this.options.clock.now(), deltas });
        this.flushed = now;
      } catch (err) {
        this.options.logger.warn({ error: errorMessage(err) }, 'gateway counters: the flush to the store failed; its counts go with the next');
      }
    });
  }

  /** The sums over the replicas, with what moved here since the last flush. */
  totals(): Promise<SharedTotals> {
    return this.inTurn(async () => {
      const stored = await this.options.store.totals({ replicaId: this.options.replicaId, aliveSinceMs: this.aliveSinceMs() });
      const sums: Keyed = new Map(stored.map((row) => [keyOf(row), { ...row }]));
      for (const [key, row] of localRows(this.options.accounting)) {
        const unflushed = difference(row, this.flushed.get(key));
        const sum = sums.get(key) ?? { kind: row.kind, name: row.name, cause: row.cause, ...zero };
        sum.bytesIn += unflushed.bytesIn;
        sum.bytesOut += unflushed.bytesOut;
        sum.connections += unflushed.connections;
        // The store counted the others' open tunnels only: this replica's are its own, live.
        sum.open += row.open;
        sums.set(key, sum);
      }
      return shape([...sums.values()]);
    });
  }

  private aliveSinceMs(): number {
    return this.options.clock.now() - this.options.aliveMs;
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.turn.then(work, work);
    this.turn = result.catch(() => undefined);
    return result;
  }
}

/** Store rows as the page shows them: per Proxy (with its failures by cause) and per token, by name. */
function shape(rows: TrafficDelta[]): SharedTotals {
  const of = (kind: TrafficKind) => rows.filter((row) => row.kind === kind).sort((a, b) => a.name.localeCompare(b.name));
  const proxies = new Map<string, ProxyTraffic>();
  const proxyEntry = (name: string) => {
    let entry = proxies.get(name);
    if (!entry) proxies.set(name, (entry = { proxy: name, bytesIn: 0, bytesOut: 0, open: 0, tunnels: 0, failures: {} }));
    return entry;
  };
  for (const row of of('proxy'))
    Object.assign(proxyEntry(row.name), { bytesIn: row.bytesIn, bytesOut: row.bytesOut, open: row.open, tunnels: row.connections });
  for (const row of of('failure')) proxyEntry(row.name).failures[row.cause] = row.connections;
  return {
    proxies: [...proxies.values()].sort((a, b) => a.proxy.localeCompare(b.proxy)),
    tokens: of('token').map((row) => ({ token: row.name, bytesIn: row.bytesIn, bytesOut: row.bytesOut, open: row.open, tunnels: row.connections })),
  };
}
