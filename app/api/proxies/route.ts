import { proxyListSchema, proxyViewSchema } from '@/lib/api/proxies';
import { proxyCreateSchema } from '@/lib/proxy-spec';
import { route } from '@/server/http/route';
import { proxyListQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', query: proxyListQuery, response: proxyListSchema }, async ({ services, query }) => ({
  proxies: await services.proxies.list(query),
}));

export const POST = route(
  { access: 'admin', body: proxyCreateSchema, status: 201, response: proxyViewSchema },
  async ({ services, body }) => await services.proxies.create(body),
);
