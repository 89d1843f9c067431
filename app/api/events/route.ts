// Live changes as Server-Sent Events (lib/api/live.ts): Proxy records, host health, domain
// lifecycle, new stats; resumable with Last-Event-ID. A session or an API token may listen.
import { credentialsHold, liveStream, streamOwner } from '@/server/http/live-stream';
import { bearerToken, route } from '@/server/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'reader' }, ({ runtime, auth, request, principal, sessionCookie }) =>
  liveStream({
    feed: runtime.live,
    lastEventId: request.headers.get('last-event-id') ?? undefined,
    owner: streamOwner(principal, sessionCookie),
    signal: request.signal,
    authorised: credentialsHold({ auth, principal, sessionCookie, bearer: bearerToken(request) }),
  }),
);
