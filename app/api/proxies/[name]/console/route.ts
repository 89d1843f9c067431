// The Proxy's serial console as Server-Sent Events: the buffered output, then live output and status.
import { consoleStream } from '@/server/http/console-api';
import { route } from '@/server/http/route';
import { proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: proxyParams }, ({ runtime, params, request }) => consoleStream(runtime, params.name, request.signal));
