// Who runs the control loops. Every replica serves the UI and the API from the shared store; only
// the leader runs the loops that touch hypervisors (reconciler, health checks, GC, probes, event
// subscriptions, housekeeping). With SQLite there is one replica and it leads from its start; with
// PostgreSQL the replicas elect one through an advisory lock (advisory-lock.ts).
export interface LeadershipListener {
  gained(): void;
  /** called synchronously at the step-down, so the loops are told before anything else runs */
  lost(reason: string): void;
}

export interface Replica {
  id: string;
  address: string;
}

export interface Leadership {
  readonly engine: 'single' | 'advisory-lock';
  start(listener: LeadershipListener): void;
  /** true while this replica leads with a fresh lease; a lapsed lease steps down here, at once */
  isLeader(): boolean;
  /** since when this replica leads (epoch ms), while it does */
  leaderSince(): number | undefined;
  /** tells the leader, on whichever replica it runs, that a Proxy changed */
  announce(proxyName: string): Promise<void>;
  /** steps down (if leading) and lets go of the database */
  stop(): Promise<void>;
}

/** The only replica (SQLite): it leads from start to stop. */
export class SingleReplica implements Leadership {
  readonly engine = 'single' as const;
  private since: number | undefined;
  private listener: LeadershipListener | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  start(listener: LeadershipListener): void {
    this.listener = listener;
    this.since = this.now();
    listener.gained();
  }

  isLeader(): boolean {
    return this.since !== undefined;
  }

  leaderSince(): number | undefined {
    return this.since;
  }

  /** Nothing to tell: the loops run in this process, and the caller queues the Proxy itself. */
  async announce(): Promise<void> {}

  async stop(): Promise<void> {
    if (this.since === undefined) return;
    this.since = undefined;
    this.listener?.lost('stopping');
  }
}
