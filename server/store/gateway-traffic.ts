// The gateway's counters shared by the replicas: every query on gateway_traffic (migration 10).
// Each replica adds what its gateway moved since its last flush, under its own id, in one
// statement; the totals are the sums over every replica. Adding deltas (not writing cumulative
// values) is what makes a restart harmless: the new process counts from 0 and adds on top, and a
// replica folded away while it was silent only starts a row of its own again. Open tunnels are a
// state, not a counter: only replicas whose heartbeat (replicas.ts) is recent count theirs.
import type { SqlExecutor, SqlValue } from './sql';

/** `proxy` and `token` rows carry traffic; a `failure` row counts a Proxy's failed connections of one cause. */
export type TrafficKind = 'proxy' | 'token' | 'failure';

export interface TrafficDelta {
  kind: TrafficKind;
  /** the Proxy's name, or the gateway token's id */
  name: string;
  /** the failure cause on a `failure` row, '' otherwise */
  cause: string;
  bytesIn: number;
  bytesOut: number;
  /** tunnels opened (`proxy`, `token`) or failed (`failure`) */
  connections: number;
  /** tunnels open at the flush (replaces the previous value, not added) */
  open: number;
}

export type TrafficTotal = TrafficDelta;

interface TotalRow {
  kind: TrafficKind;
  name: string;
  cause: string;
  bytes_in: number;
  bytes_out: number;
  connections: number;
  open_now: number;
}

/** The replica id the rows of replicas gone for good are folded into. */
const retired = '';

const columns = `replica_id, kind, name, cause, bytes_in, bytes_out, connections, open_now, updated_at`;
/** Added on conflict; open_now and updated_at are replaced. */
const upsert = `ON CONFLICT (replica_id, kind, name, cause) DO UPDATE SET
  bytes_in = gateway_traffic.bytes_in + excluded.bytes_in,
  bytes_out = gateway_traffic.bytes_out + excluded.bytes_out,
  connections = gateway_traffic.connections + excluded.connections,
  open_now = excluded.open_now,
  updated_at = excluded.updated_at`;

export class GatewayTrafficStore {
  constructor(private readonly db: SqlExecutor) {}

  /** Adds one flush of `replicaId`: one statement, none when `deltas` is empty. */
  async add(options: { replicaId: string; atMs: number; deltas: readonly TrafficDelta[] }): Promise<void> {
    if (options.deltas.length === 0) return;
    await this.upsertRows(this.db, options);
  }

  /**
   * Every total summed over the replicas, ordered by kind, name and cause. `open` counts the
   * replicas whose heartbeat is at `aliveSinceMs` or later, except `replicaId`: the caller adds
   * its own open tunnels, fresher than its last flush.
   */
  async totals(options: { replicaId: string; aliveSinceMs: number }): Promise<TrafficTotal[]> {
    const rows = await this.db.all<TotalRow>(
      `SELECT t.kind, t.name, t.cause, SUM(t.bytes_in) AS bytes_in, SUM(t.bytes_out) AS bytes_out, SUM(t.connections) AS connections,
              SUM(CASE WHEN t.replica_id <> ? AND r.heartbeat_at >= ? THEN t.open_now ELSE 0 END) AS open_now
         FROM gateway_traffic t LEFT JOIN replicas r ON r.id = t.replica_id
        GROUP BY t.kind, t.name, t.cause ORDER BY t.kind, t.name, t.cause`,
      [options.replicaId, options.aliveSinceMs],
    );
    return rows.map((row) => ({
      kind: row.kind,
      name: row.name,
      cause: row.cause,
      bytesIn: Number(row.bytes_in),
      bytesOut: Number(row.bytes_out),
      connections: Number(row.connections),
      open: Number(row.open_now),
    }));
  }

  /**
   * Folds the rows of replicas not heard from since `aliveSinceMs`, and `replicaId`'s own (it is
   * starting: rows under its id are a previous process's), into the retired row per kind, name and
   * cause, their open tunnels dropped. Returns how many rows went. The rows are deleted first and
   * what the delete returned is added: two replicas folding at once cannot both add the same rows.
   */
  async retire(options: { replicaId: string; aliveSinceMs: number }): Promise<number> {
    return this.db.transaction(async (tx) => {
      const gone = await tx.all<TotalRow>(
        `DELETE FROM gateway_traffic WHERE replica_id <> ? AND (replica_id = ? OR NOT EXISTS (
           SELECT 1 FROM replicas r WHERE r.id = gateway_traffic.replica_id AND r.heartbeat_at >= ?))
         RETURNING kind, name, cause, bytes_in, bytes_out, connections, open_now`,
        [retired, options.replicaId, options.aliveSinceMs],
      );
      const folded = new Map<string, TrafficDelta>();
      for (const row of gone) {
        const key = JSON.stringify([row.kind, row.name, row.cause]);
        const sum = folded.get(key) ?? { kind: row.kind, name: row.name, cause: row.cause, bytesIn: 0, bytesOut: 0, connections: 0, open: 0 };
        sum.bytesIn += Number(row.bytes_in);
        sum.bytesOut += Number(row.bytes_out);
        sum.connections += Number(row.connections);
        folded.set(key, sum);
      }
      if (folded.size > 0) await this.upsertRows(tx, { replicaId: retired, atMs: 0, deltas: [...folded.values()] });
      return gone.length;
    });
  }

  private async upsertRows(db: SqlExecutor, options: { replicaId: string; atMs: number; deltas: readonly TrafficDelta[] }): Promise<void> {
    const values: SqlValue[] = [];
    for (const delta of options.deltas) {
      values.push(options.replicaId, delta.kind, delta.name, delta.cause, delta.bytesIn, delta.bytesOut, delta.connections, delta.open, options.atMs);
    }
    const rows = options.deltas.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    await db.run(`INSERT INTO gateway_traffic (${columns}) VALUES ${rows} ${upsert}`, values);
  }
}
