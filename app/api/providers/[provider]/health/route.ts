import { healthHistorySchema } from '@/lib/api/providers';
import { providerHealth } from '@/server/http/providers-api';
import { route } from '@/server/http/route';
import { healthQuery, providerParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: providerParams, query: healthQuery, response: healthHistorySchema }, ({ services, params, query }) =>
  providerHealth(services, { provider: params.provider, ...query }),
);
