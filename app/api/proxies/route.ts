import type { ProxyList, ProxyView } from '@/lib/api/proxies';
import { proxyCreateSchema } from '@/lib/proxy-spec';
import { route } from '@/server/http/route';
import { proxyListQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route(
  { access: 'admin', query: proxyListQuery },
  async ({ services, query }) => ({ proxies: await services.proxies.list(query) }) satisfies ProxyList,
);

export const POST = route(
  { access: 'admin', body: proxyCreateSchema, status: 201 },
  async ({ services, body }) => (await services.proxies.create(body)) satisfies ProxyView,
);
