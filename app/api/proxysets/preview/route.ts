import { proxySetCreateSchema } from '@/lib/api/proxyset-spec';
import { proxySetPreviewSchema } from '@/lib/api/proxysets';
import { route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

/** The set as POST /api/proxysets takes it; answers where its members would go now, creating nothing. */
export const POST = route(
  { access: 'admin', body: proxySetCreateSchema, response: proxySetPreviewSchema },
  async ({ services, body }) => await services.placement.set(body),
);
