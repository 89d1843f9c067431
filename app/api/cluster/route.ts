// The replicas, the leader and their heartbeats (admin).
import type { ClusterView } from '@/lib/api/cluster';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin' }, async ({ services }) => (await services.cluster.view()) satisfies ClusterView);
