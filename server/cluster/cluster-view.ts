// The body of GET /api/cluster, from the replicas' heartbeat rows (PostgreSQL) or from this
// process alone (SQLite).
import type { ClusterView } from '@/lib/api/cluster';
import type { Store } from '@/server/store';
import type { ReplicaRecord } from '@/server/store/replicas';
import type { Leadership, Replica } from './leadership';

const iso = (ms: number) => new Date(ms).toISOString();

export async function clusterView(options: {
  store: Store;
  leadership: Leadership;
  replica: Replica;
  startedAtMs: number;
  leaseMs: number;
  nowMs: number;
}): Promise<ClusterView> {
  const { store, leadership, replica, nowMs } = options;
  const leaderSince = leadership.isLeader() ? leadership.leaderSince() : undefined;
  const self: ReplicaRecord = {
    ...replica,
    startedAtMs: options.startedAtMs,
    heartbeatAtMs: nowMs,
    ...(leaderSince !== undefined ? { leaderSinceMs: leaderSince } : {}),
  };
  const rows = store.engine === 'postgres' ? (await store.replicas.list()).filter((row) => row.id !== replica.id) : [];
  const all = [self, ...rows].sort((a, b) => a.startedAtMs - b.startedAtMs || a.id.localeCompare(b.id));
  const alive = (row: ReplicaRecord) => row === self || nowMs - row.heartbeatAtMs <= options.leaseMs;
  // A killed leader's row says it leads until its heartbeat ages past the lease; the latest
  // election wins (this replica, when it leads, knows so first hand).
  const leaderRow = all
    .filter((row) => alive(row) && row.leaderSinceMs !== undefined)
    .sort((a, b) => (b.leaderSinceMs as number) - (a.leaderSinceMs as number))[0];
  const replicas = all.map((row) => {
    const leads = row === leaderRow;
    return {
      id: row.id,
      address: row.address,
      startedAt: iso(row.startedAtMs),
      lastHeartbeatAt: iso(row.heartbeatAtMs),
      alive: alive(row),
      leader: leads,
      ...(leads ? { leaderSince: iso(row.leaderSinceMs as number) } : {}),
      self: row === self,
    };
  });
  const leader = replicas.find((entry) => entry.leader);
  return { store: store.engine, leader: leader?.id ?? null, leaderSince: leader?.leaderSince ?? null, replicas };
}
