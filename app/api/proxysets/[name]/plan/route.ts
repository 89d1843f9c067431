import { proxySetUpdateSchema } from '@/lib/api/proxyset-spec';
import { proxySetPlanSchema } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';
import { proxySetParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

/** The body of a PUT; answers what that PUT would do (nothing, settings, relabel, rolling replacement of N), changing nothing. */
export const POST = route(
  { access: 'admin', params: proxySetParams, body: proxySetUpdateSchema, response: proxySetPlanSchema },
  async ({ services, params, body }) => await services.proxySets.plan(params.name, body),
);
