import { proxySetViewSchema } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';
import { proxySetParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

/** Continues a rolling change, and releases a ReplacementsExhausted stop. */
export const POST = route(
  { access: 'admin', params: proxySetParams, response: proxySetViewSchema },
  async ({ services, params }) => await services.proxySets.resume(params.name),
);
