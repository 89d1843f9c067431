import { addHostSchema } from '@/lib/api/host-setup';
import { route } from '@/server/http/route';
import { providerParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'admin', params: providerParams, body: addHostSchema, status: 201 }, ({ services, params, body }) =>
  services.hostConfig.add(params.provider, body),
);
