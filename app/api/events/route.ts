// Live changes as Server-Sent Events (lib/api/live.ts): Proxy records, host health, domain
// lifecycle, new stats; resumable with Last-Event-ID (or ?lastEventId=, which the header
// overrides). A session or an API token may listen; a token hears Proxy changes only, their URLs
// redacted (live-reader.ts). Only the leading replica serves it (it runs the
// loops that make the changes); another answers 503 and the dashboard polls it instead.
import { ResourceUnavailableError } from '@/server/errors';
import { readerChange } from '@/server/http/live-reader';
import { credentialsHold, liveStream, streamOwner } from '@/server/http/live-stream';
import { bearerToken, route } from '@/server/http/route';
import { liveEventsQuery } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route({ access: 'reader', query: liveEventsQuery }, ({ services, auth, request, query, principal, sessionCookie }) => {
  if (!services.cluster.isLeader())
    throw new ResourceUnavailableError('this replica does not lead: the live feed is served by the leader (GET /api/cluster names it)');
  return liveStream({
    feed: services.live,
    lastEventId: request.headers.get('last-event-id') ?? query.lastEventId,
    owner: streamOwner(principal, sessionCookie),
    signal: request.signal,
    authorised: credentialsHold({ auth, principal, sessionCookie, bearer: bearerToken(request) }),
    // a token is a reader: Proxy changes only, URLs redacted
    ...(principal?.kind === 'token' ? { scope: readerChange } : {}),
  });
});
