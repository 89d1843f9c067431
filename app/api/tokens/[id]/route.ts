import { revokedTokenSchema, tokenParamsSchema } from '@/lib/api/auth';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const DELETE = route(
  { access: 'admin', params: tokenParamsSchema, response: revokedTokenSchema },
  async ({ auth, params }) => await auth.revokeToken(params.id),
);
