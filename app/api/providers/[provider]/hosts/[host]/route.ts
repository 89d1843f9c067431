import { hostInventorySchema } from '@/lib/api/providers';
import { editHostSchema } from '@/lib/api/host-setup';
import { route } from '@/server/http/route';
import { hostParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: hostParams, response: hostInventorySchema }, ({ services, params }) => services.hosts.inventory(params));

export const PUT = route({ access: 'admin', params: hostParams, body: editHostSchema }, ({ services, params, body }) =>
  services.hostConfig.update(params.provider, params.host, body),
);

export const DELETE = route({ access: 'admin', params: hostParams }, ({ services, params }) => services.hostConfig.remove(params.provider, params.host));
