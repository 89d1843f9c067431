// The replicas, the leader and their heartbeats (admin).
import { clusterSchema } from '@/lib/api/cluster';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', response: clusterSchema }, async ({ services }) => await services.cluster.view());
