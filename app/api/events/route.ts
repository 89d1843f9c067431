// Live changes as Server-Sent Events (lib/api/live.ts): Proxy records, host health, domain
// lifecycle, new stats; resumable with Last-Event-ID (or ?lastEventId=, which the header
// overrides). A session or an API token may listen.
import { credentialsHold, liveStream, streamOwner } from '@/server/http/live-stream';
import { bearerToken, route } from '@/server/http/route';
import { liveEventsQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'reader', query: liveEventsQuery }, ({ runtime, auth, request, query, principal, sessionCookie }) =>
  liveStream({
    feed: runtime.live,
    lastEventId: request.headers.get('last-event-id') ?? query.lastEventId,
    owner: streamOwner(principal, sessionCookie),
    signal: request.signal,
    authorised: credentialsHold({ auth, principal, sessionCookie, bearer: bearerToken(request) }),
  }),
);
