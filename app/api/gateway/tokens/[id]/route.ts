import { revokedTokenSchema, tokenParamsSchema } from '@/lib/api/auth';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

/** The crawlers using it get 407 from the gateway on their next connection. */
export const DELETE = route(
  { access: 'admin', params: tokenParamsSchema, response: revokedTokenSchema },
  async ({ auth, params }) => await auth.gatewayTokens.revoke(params.id),
);
