// Takes the Proxy's serial console from whoever holds it (an admin's `virsh console` is disconnected).
import { consoleTakeover } from '@/server/http/console-api';
import { route } from '@/server/http/route';
import { proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'admin', params: proxyParams }, ({ services, params }) => consoleTakeover(services, params.name));
