import { proxySetCreateSchema } from '@/lib/api/proxyset-spec';
import { proxySetListSchema, proxySetViewSchema } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', response: proxySetListSchema }, async ({ services }) => ({ proxysets: await services.proxySets.list() }));

/** Created now; the set controller (on the leader) makes its members. */
export const POST = route(
  { access: 'admin', body: proxySetCreateSchema, status: 201, response: proxySetViewSchema },
  async ({ services, body }) => await services.proxySets.create(body),
);
