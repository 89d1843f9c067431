import { editHostSchema } from '@/lib/api/host-setup';
import { hostInventory } from '@/server/http/hosts-api';
import { route } from '@/server/http/route';
import { hostParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: hostParams }, ({ runtime, params }) => hostInventory(runtime, params));

export const PUT = route({ access: 'admin', params: hostParams, body: editHostSchema }, ({ runtime, params, body }) =>
  runtime.hostConfig.update(params.provider, params.host, body),
);

export const DELETE = route({ access: 'admin', params: hostParams }, ({ runtime, params }) => runtime.hostConfig.remove(params.provider, params.host));
