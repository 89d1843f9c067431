// The Proxy's VM over a window (1h, 24h, 7d): CPU %, memory, network in/out and disk I/O per step.
import { proxyStatsSchema } from '@/lib/api/stats';
import { route } from '@/server/http/route';
import { proxyParams, statsQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: proxyParams, query: statsQuery, response: proxyStatsSchema }, ({ services, params, query }) =>
  services.stats.proxy({ name: params.name, ...query }),
);
