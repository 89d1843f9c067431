// GET /api/cluster (admin): the replicas serving this store, which one leads (it runs the control
// loops, holds the image download progress and the event subscriptions) and since when, and each
// replica's last heartbeat. With SQLite there is one replica, leading since its start.
import { z } from 'zod';

export const replicaSchema = z.strictObject({
  id: z.string(),
  /** where it serves the UI and API (REPLICA_ADDRESS) */
  address: z.string(),
  /** RFC 3339 */
  startedAt: z.string(),
  lastHeartbeatAt: z.string(),
  /** its heartbeat is younger than the lease */
  alive: z.boolean(),
  leader: z.boolean(),
  /** RFC 3339, while it leads */
  leaderSince: z.string().optional(),
  /** the replica that answered */
  self: z.boolean(),
});
export type ReplicaView = z.infer<typeof replicaSchema>;

export const clusterSchema = z.strictObject({
  /** `sqlite`: one replica; `postgres`: any number, one leader */
  store: z.enum(['sqlite', 'postgres']),
  /** the leading replica's id, or null between a leader's loss and the next election */
  leader: z.string().nullable(),
  leaderSince: z.string().nullable(),
  replicas: z.array(replicaSchema),
});
export type ClusterView = z.infer<typeof clusterSchema>;
