// The Proxy's VM over a window (1h, 24h, 7d): CPU %, memory, network in/out and disk I/O per step.
import { route } from '@/server/http/route';
import { proxyParams, statsQuery } from '@/server/http/schemas';
import { proxyStats } from '@/server/http/stats-api';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: proxyParams, query: statsQuery }, ({ runtime, params, query }) =>
  proxyStats(runtime, { name: params.name, ...query }),
);
