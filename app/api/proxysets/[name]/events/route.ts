import { proxyEventListSchema } from '@/lib/api/proxies';
import { route } from '@/server/http/route';
import { eventsQuery, proxySetParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

/** The set's own events (members made, replaced, deleted; budget; rollout), newest first. */
export const GET = route(
  { access: 'admin', params: proxySetParams, query: eventsQuery, response: proxyEventListSchema },
  async ({ services, params, query }) => ({ events: await services.proxySets.events(params.name, query.limit) }),
);
