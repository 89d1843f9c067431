import { proxySetUpdateSchema } from '@/lib/api/proxyset-spec';
import { proxySetViewSchema } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';
import { proxySetParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route(
  { access: 'admin', params: proxySetParams, response: proxySetViewSchema },
  async ({ services, params }) => await services.proxySets.get(params.name),
);

/** The whole set again; a template change (in the spec hash) replaces the members, rolling. */
export const PUT = route(
  { access: 'admin', params: proxySetParams, body: proxySetUpdateSchema, response: proxySetViewSchema },
  async ({ services, params, body }) => await services.proxySets.update(params.name, body),
);

/** Accepted: the members are being deleted; the set goes once they are gone. */
export const DELETE = route(
  { access: 'admin', params: proxySetParams, status: 202, response: proxySetViewSchema },
  async ({ services, params }) => await services.proxySets.delete(params.name),
);
