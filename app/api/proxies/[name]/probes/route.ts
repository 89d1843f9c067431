// The Proxy's probes since `since` (RFC 3339 or epoch ms; a day back by default), oldest first,
// for the latency chart: every probe of the last day, one per five minutes before that.
import { probeHistorySchema } from '@/lib/api/proxies';
import { route } from '@/server/http/route';
import { probesQuery, proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: proxyParams, query: probesQuery, response: probeHistorySchema }, async ({ services, params, query }) => ({
  proxy: params.name,
  since: new Date(query.sinceMs).toISOString(),
  samples: await services.proxies.probes(params.name, query.sinceMs),
}));
