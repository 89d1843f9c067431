// The Proxy's serial console as Server-Sent Events: the buffered output, then live output and status.
import { consoleStream } from '@/server/http/console-api';
import { credentialsHold } from '@/server/http/live-stream';
import { route } from '@/server/http/route';
import { proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'admin', params: proxyParams }, ({ services, auth, params, request, principal, sessionCookie }) =>
  consoleStream(services, params.name, { signal: request.signal, authorised: credentialsHold({ auth, principal, sessionCookie, bearer: undefined }) }),
);
