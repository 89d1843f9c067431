import { proxySetCreateSchema } from '@/lib/api/proxyset-spec';
import type { ProxySetList, ProxySetView } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin' }, async ({ services }) => ({ proxysets: await services.proxySets.list() }) satisfies ProxySetList);

/** Created now; the set controller (on the leader) makes its members. */
export const POST = route(
  { access: 'admin', body: proxySetCreateSchema, status: 201 },
  async ({ services, body }) => (await services.proxySets.create(body)) satisfies ProxySetView,
);
