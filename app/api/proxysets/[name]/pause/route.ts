import { proxySetViewSchema } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';
import { proxySetParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

/** Holds a rolling change where it is; the count is still kept. */
export const POST = route(
  { access: 'admin', params: proxySetParams, response: proxySetViewSchema },
  async ({ services, params }) => await services.proxySets.pause(params.name),
);
