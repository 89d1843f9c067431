import { proxySetScaleSchema } from '@/lib/api/proxyset-spec';
import { proxySetViewSchema } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';
import { proxySetParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

/** `{replicas}`: extra members go not-Ready first, then newest. */
export const POST = route(
  { access: 'admin', params: proxySetParams, body: proxySetScaleSchema, response: proxySetViewSchema },
  async ({ services, params, body }) => await services.proxySets.scale(params.name, body),
);
