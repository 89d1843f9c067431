import { placementPreview } from '@/server/http/placement-api';
import { route } from '@/server/http/route';
import { placementQuery, providerParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: providerParams, query: placementQuery }, ({ runtime, params, query }) =>
  placementPreview(runtime, { provider: params.provider, ...query }),
);
