import { proxyEventListSchema } from '@/lib/api/proxies';
import { route } from '@/server/http/route';
import { eventsQuery, proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: proxyParams, query: eventsQuery, response: proxyEventListSchema }, async ({ services, params, query }) => ({
  events: await services.proxies.events(params.name, query.limit),
}));
