import { proxySetScaleSchema } from '@/lib/api/proxyset-spec';
import type { ProxySetView } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';
import { proxySetParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

/** `{replicas}`: extra members go not-Ready first, then newest. */
export const POST = route(
  { access: 'admin', params: proxySetParams, body: proxySetScaleSchema },
  async ({ services, params, body }) => (await services.proxySets.scale(params.name, body)) satisfies ProxySetView,
);
