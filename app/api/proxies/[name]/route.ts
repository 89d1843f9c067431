import { proxyViewSchema } from '@/lib/api/proxies';
import { proxyUpdateSchema } from '@/lib/proxy-spec';
import { route } from '@/server/http/route';
import { proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route(
  { access: 'admin', params: proxyParams, response: proxyViewSchema },
  async ({ services, params }) => await services.proxies.get(params.name),
);

/** The whole spec again; a change to anything the spec hash covers replaces the VM. */
export const PUT = route(
  { access: 'admin', params: proxyParams, body: proxyUpdateSchema, response: proxyViewSchema },
  async ({ services, params, body }) => await services.proxies.update(params.name, body),
);

/** Accepted: the Proxy stays (phase Deleting) until the provider has deleted its instance. */
export const DELETE = route(
  { access: 'admin', params: proxyParams, status: 202, response: proxyViewSchema },
  async ({ services, params }) => await services.proxies.delete(params.name),
);
