// The overview's traffic: every Proxy's bytes in and out over the last hour, per minute, and the busiest Proxies.
import { trafficOverviewSchema } from '@/lib/api/stats';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', response: trafficOverviewSchema }, ({ services }) => services.stats.traffic());
