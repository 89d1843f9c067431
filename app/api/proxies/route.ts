import type { ProxyList, ProxyView } from '@/lib/api/proxies';
import { proxyCreateSchema } from '@/lib/proxy-spec';
import { route } from '@/server/http/route';
import { proxyListQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route(
  { access: 'admin', query: proxyListQuery },
  async ({ runtime, query }) => ({ proxies: await runtime.proxies.list(query) }) satisfies ProxyList,
);

export const POST = route(
  { access: 'admin', body: proxyCreateSchema, status: 201 },
  async ({ runtime, body }) => (await runtime.proxies.create(body)) satisfies ProxyView,
);
