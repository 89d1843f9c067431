import { proxySetReplaceSchema } from '@/lib/api/proxyset-spec';
import { proxySetViewSchema } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';
import { proxySetParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

/** `{members: [...]}`: deleted now, new members made in their place (not counted against the budget). */
export const POST = route(
  { access: 'admin', params: proxySetParams, body: proxySetReplaceSchema, response: proxySetViewSchema },
  async ({ services, params, body }) => await services.proxySets.replace(params.name, body),
);
