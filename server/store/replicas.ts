// The replicas serving this store: each writes its heartbeat here, and the leader also since when
// it leads, so any replica can answer /api/cluster. Who leads is decided elsewhere (a PostgreSQL
// advisory lock, server/cluster); these rows only report it.
import type { SqlExecutor } from './sql';

export interface ReplicaRecord {
  id: string;
  /** where this replica serves the UI and API, as it was told (REPLICA_ADDRESS) or found */
  address: string;
  startedAtMs: number;
  heartbeatAtMs: number;
  /** set while it leads */
  leaderSinceMs?: number;
}

interface ReplicaRow {
  id: string;
  address: string;
  started_at: number;
  heartbeat_at: number;
  leader_since: number | null;
}

export class ReplicaStore {
  constructor(private readonly db: SqlExecutor) {}

  /** Records the heartbeat of `id` and whether (since when) it leads. */
  async heartbeat(replica: ReplicaRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO replicas (id, address, started_at, heartbeat_at, leader_since) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET address = excluded.address, heartbeat_at = excluded.heartbeat_at, leader_since = excluded.leader_since`,
      [replica.id, replica.address, replica.startedAtMs, replica.heartbeatAtMs, replica.leaderSinceMs ?? null],
    );
  }

  async list(): Promise<ReplicaRecord[]> {
    const rows = await this.db.all<ReplicaRow>(`SELECT * FROM replicas ORDER BY started_at, id`);
    return rows.map((row) => ({
      id: row.id,
      address: row.address,
      startedAtMs: row.started_at,
      heartbeatAtMs: row.heartbeat_at,
      ...(row.leader_since !== null ? { leaderSinceMs: row.leader_since } : {}),
    }));
  }

  /** Forgets replicas silent since before `beforeMs` (stopped or replaced long ago); returns how many. */
  async pruneSilentSince(beforeMs: number): Promise<number> {
    return (await this.db.run(`DELETE FROM replicas WHERE heartbeat_at < ?`, [beforeMs])).changes;
  }

  async remove(id: string): Promise<void> {
    await this.db.run(`DELETE FROM replicas WHERE id = ?`, [id]);
  }
}
