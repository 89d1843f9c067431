// Keystrokes for the Proxy's serial console (never logged).
import { consoleInputSchema } from '@/lib/api/console';
import { consoleInput } from '@/server/http/console-api';
import { route } from '@/server/http/route';
import { proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const POST = route({ access: 'admin', params: proxyParams, body: consoleInputSchema }, ({ services, params, body }) =>
  consoleInput(services, params.name, body.data),
);
