// Leader election among replicas sharing one PostgreSQL database: the leader is the replica whose
// dedicated connection holds a session advisory lock (pg_try_advisory_lock). The lock lives exactly
// as long as that session, and two timers bound how long a silent session can live:
//
// - the server: the lock session runs with idle_session_timeout = LEADER_LEASE, so a replica that
//   stops talking (frozen, partitioned) loses the session, and with it the lock, LEADER_LEASE after
//   its last statement ended; a killed replica's socket closes and loses it at once;
// - the replica: it counts its lease from the moment it *sent* its last successful heartbeat
//   (which is before the server's idle timer restarted) and considers it lapsed one heartbeat
//   before LEADER_LEASE. Every provider call checks the lease first (fenced-providers.ts), so on
//   waking up a frozen leader steps down before its first hypervisor call.
//
// So a new leader can only exist after the old one's own lease has lapsed. The worst-case overlap
// is what was already in flight when the old leader froze: an RPC its libvirt connection had
// sent, a status write of a pass that had passed its provider call. Both are safe: Create and
// Delete are idempotent (a domain name is unique per host, a Create adopts an instance with the
// Proxy's uid, a Delete of a missing instance succeeds), and every reconcile pass re-reads the
// record and the instance, so the new leader's next pass corrects a stale status write.
import pg from 'pg';
import { numericTypes, PostgresStatements } from '@/server/store/postgres';
import { ReplicaStore } from '@/server/store/replicas';
import type { SqlExecutor } from '@/server/store/sql';
import type { Logger } from '@/server/telemetry/logger';
import type { Leadership, LeadershipListener, Replica } from './leadership';
import { errorMessage } from '@/lib/error-message';

/** The advisory lock every replica of this database competes for ("kvm2lead"). */
const leaderLockKey = 0x6b766d32_6c656164n;
/** Proxy changes made on any replica reach the leader on this channel. */
export const proxyChangedChannel = 'kvm2_proxy_changed';
/** Replicas silent for this long are dropped from the list. */
const forgetAfterMs = 60 * 60_000;

export interface AdvisoryLockOptions {
  databaseUrl: string;
  /** the store's pool, for announcements */
  sql: SqlExecutor;
  replica: Replica;
  heartbeatMs: number;
  /** server-side idle_session_timeout of the lock session; the local lease is one heartbeat shorter */
  leaseMs: number;
  logger: Logger;
  /** a Proxy changed on some replica (delivered while this one leads) */
  onProxyChanged: (name: string) => void;
  /** wall clock for the rows /api/cluster shows */
  now?: () => number;
  /** monotonic clock for the lease */
  monotonic?: () => number;
}

export class AdvisoryLockLeadership implements Leadership {
  readonly engine = 'advisory-lock' as const;
  private client: pg.Client | undefined;
  private listener: LeadershipListener | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt: number;
  private since: number | undefined;
  /** monotonic time the last successful heartbeat was sent */
  private provenAt = 0;
  private stopped = false;
  /** monotonic time before which this replica, having just stepped down, leaves the lock to others */
  private competeAfter = 0;
  private ticking: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly monotonic: () => number;

  constructor(private readonly options: AdvisoryLockOptions) {
    this.now = options.now ?? Date.now;
    this.monotonic = options.monotonic ?? (() => performance.now());
    this.startedAt = this.now();
  }

  private get localLeaseMs(): number {
    return this.options.leaseMs - this.options.heartbeatMs;
  }

  start(listener: LeadershipListener): void {
    this.listener = listener;
    this.schedule(0);
  }

  isLeader(): boolean {
    if (this.since !== undefined && this.monotonic() - this.provenAt > this.localLeaseMs) {
      this.stepDown(`its lease lapsed: no heartbeat for ${Math.round(this.monotonic() - this.provenAt)} ms`);
    }
    return this.since !== undefined;
  }

  leaderSince(): number | undefined {
    return this.since;
  }

  async announce(proxyName: string): Promise<void> {
    await this.options.sql.run(`SELECT pg_notify(?, ?)`, [proxyChangedChannel, proxyName]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    const client = this.client;
    this.client = undefined;
    this.stepDown('stopping');
    if (client) {
      // A clean stop says goodbye, so /api/cluster stops listing this replica at once; ending the
      // session releases the lock.
      await new ReplicaStore(new PostgresStatements(client)).remove(this.options.replica.id).catch(() => undefined);
      await client.end().catch(() => undefined);
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule(this.options.heartbeatMs));
    }, delayMs);
  }

  private async tick(): Promise<void> {
    // A replica waking from a freeze checks its lease before anything else (stepping down if lapsed).
    this.isLeader();
    const sentAt = this.monotonic();
    try {
      const client = await this.connection();
      if (this.since === undefined && this.monotonic() >= this.competeAfter) {
        const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1) AS locked`, [leaderLockKey.toString()]);
        if (rows[0]?.locked && !this.stopped) {
          this.provenAt = sentAt;
          this.since = this.now();
          this.options.logger.info({ replica: this.options.replica.id }, 'this replica leads now: starting the control loops');
          this.listener?.gained();
        }
      }
      const replicas = new ReplicaStore(new PostgresStatements(client));
      await replicas.heartbeat({
        ...this.options.replica,
        startedAtMs: this.startedAt,
        heartbeatAtMs: this.now(),
        ...(this.since !== undefined ? { leaderSinceMs: this.since } : {}),
      });
      if (this.since !== undefined) {
        this.provenAt = sentAt;
        await replicas.pruneSilentSince(this.now() - forgetAfterMs);
      }
    } catch (err) {
      this.options.logger.warn({ error: errorMessage(err) }, 'leader election: the database connection failed; reconnecting');
      this.dropConnection();
      if (this.since !== undefined) this.stepDown('its lock session is gone');
    }
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({
      connectionString: this.options.databaseUrl,
      types: numericTypes,
      keepAlive: true,
      connectionTimeoutMillis: this.options.heartbeatMs,
      query_timeout: this.options.heartbeatMs,
    });
    client.on('error', () => {
      if (this.client !== client) return;
      this.dropConnection();
      if (this.since !== undefined) this.stepDown('its lock session broke');
    });
    client.on('notification', (message) => {
      if (message.channel === proxyChangedChannel && message.payload && this.isLeader()) this.options.onProxyChanged(message.payload);
    });
    this.client = client;
    try {
      await client.connect();
      // The server ends this session (and releases the lock) when it stays silent for a lease.
      await client.query(`SET idle_session_timeout = ${Math.trunc(this.options.leaseMs)}`);
      await client.query(`LISTEN ${proxyChangedChannel}`);
    } catch (err) {
      this.dropConnection();
      throw err;
    }
    return client;
  }

  private dropConnection(): void {
    const client = this.client;
    this.client = undefined;
    // Ending the session releases the lock if the server still thinks we hold it.
    client?.end().catch(() => undefined);
  }

  /** Stops the loops first (synchronously), then ends the session so the lock goes to another replica. */
  private stepDown(reason: string): void {
    if (this.since === undefined) return;
    this.since = undefined;
    // Whatever made it lose the lock may still be wrong here: let another replica take it first.
    this.competeAfter = this.monotonic() + this.options.leaseMs;
    this.options.logger.warn({ replica: this.options.replica.id, reason }, 'this replica no longer leads: stopping the control loops');
    this.listener?.lost(reason);
    this.dropConnection();
  }
}
