import { placementPreviewSchema } from '@/lib/api/placement';
import { route } from '@/server/http/route';
import { placementQuery, providerParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: providerParams, query: placementQuery, response: placementPreviewSchema }, ({ services, params, query }) =>
  services.placement.host({ provider: params.provider, ...query }),
);
