import { hostInventory } from '@/server/http/hosts-api';
import { route } from '@/server/http/route';
import { hostParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: hostParams }, ({ runtime, params }) => hostInventory(runtime, params));
