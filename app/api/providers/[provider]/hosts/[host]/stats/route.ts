// A host over a window (1h, 24h, 7d): CPU % and memory used/total, and its Proxies' VMs' CPU and traffic.
import { hostStatsSchema } from '@/lib/api/stats';
import { route } from '@/server/http/route';
import { hostParams, statsQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: hostParams, query: statsQuery, response: hostStatsSchema }, ({ services, params, query }) =>
  services.stats.host({ ...params, ...query }),
);
