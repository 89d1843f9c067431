import { createdTokenSchema, createTokenSchema, tokenListSchema } from '@/lib/api/auth';
import { authBodyLimitBytes } from '@/server/http/limits';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

/** Never the secrets: id, name, prefix, dates. */
export const GET = route({ access: 'admin', response: tokenListSchema }, async ({ auth }) => ({ tokens: await auth.listTokens() }));

/** The answer's `token` is the only time the whole token is shown. */
export const POST = route(
  { access: 'admin', body: createTokenSchema, bodyLimitBytes: authBodyLimitBytes, status: 201, response: createdTokenSchema },
  async ({ auth, body }) => await auth.createToken(body.name),
);
