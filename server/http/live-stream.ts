// GET /api/events as a Server-Sent Events stream over the runtime's live feed: on connect, the
// changes missed since Last-Event-ID (or a `reset` when they are gone), then `ready` carrying the
// feed's head id (so even a client that saw no change resumes without a gap), then every change as
// it is published, and a comment every 15 s so idle connections stay open through proxies. The
// stream ends when the client goes, when the runtime stops, or when the client reads too slowly.
import { createHash } from 'node:crypto';
import { type LiveChange, type LiveMessage, liveHeartbeatMs } from '@/lib/api/live';
import type { AuthService, Principal } from '@/server/auth/service';
import type { LiveFeed } from '@/server/control/live-feed';

/** Open streams per session or token: one per tab, and room for the page's own requests (HTTP/1.1 allows 6 per origin). */
export const streamsPerOwner = 4;
/**
 * Unread bytes a stream may queue before it is closed (the client resumes from its last id): room
 * for a full replay of the feed's buffer (1,000 changes of about a KiB each) and then some.
 */
const queueLimitBytes = 4 * 1024 * 1024;
/** How long a browser waits before reconnecting. */
const retryMs = 2_000;

export interface LiveStreamOptions {
  feed: LiveFeed;
  /** the client's Last-Event-ID header */
  lastEventId: string | undefined;
  /** who opens it, for the per-owner bound */
  owner: string;
  /** aborts when the client disconnects */
  signal: AbortSignal;
  /** asked at each heartbeat: false once the session is logged out or the token revoked, which ends the stream */
  authorised: () => boolean | Promise<boolean>;
  heartbeatMs?: number;
  /** what this listener may hear of each change (undefined: nothing); every change as it is when omitted */
  scope?: (change: LiveChange) => LiveChange | undefined;
}

export const liveStreamHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-transform keeps compression middleware from buffering the stream; nginx reads X-Accel-Buffering.
  'cache-control': 'no-store, no-transform',
  'x-accel-buffering': 'no',
} as const;

function frame(message: LiveMessage, id?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}data: ${JSON.stringify(message)}\n\n`;
}

/** The owner key of a principal: its token id, or a digest of the session (the cookie itself is not kept). */
export function streamOwner(principal: Principal | undefined, sessionCookie: string | undefined): string {
  if (principal?.kind === 'token') return `token:${principal.tokenId}`;
  return `session:${createHash('sha256')
    .update(sessionCookie ?? '')
    .digest('base64url')
    .slice(0, 22)}`;
}

/** Whether the credentials that opened a stream still hold (a logout or a revoked token ends it). */
export function credentialsHold(options: {
  auth: AuthService;
  principal: Principal | undefined;
  sessionCookie: string | undefined;
  bearer: string | undefined;
}): () => Promise<boolean> {
  const { auth, principal, sessionCookie, bearer } = options;
  if (principal?.kind === 'session' && sessionCookie !== undefined) return () => auth.sessionValid(sessionCookie);
  if (principal?.kind === 'token' && bearer !== undefined) return async () => (await auth.tokenPrincipal(bearer))?.kind === 'token';
  return async () => false;
}

/** The SSE response; throws TooManyStreamsError when the owner has its streams open already. */
export function liveStream(options: LiveStreamOptions): Response {
  const { feed, lastEventId, owner, signal, authorised, heartbeatMs = liveHeartbeatMs, scope = (change: LiveChange) => change } = options;
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let unsubscribe = () => {};
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    unsubscribe();
    signal.removeEventListener('abort', end);
    try {
      controller.close();
    } catch {
      // already closed or cancelled by the reader
    }
  };
  const send = (text: string) => {
    if (ended) return;
    controller.enqueue(encoder.encode(text));
    if ((controller.desiredSize ?? 0) < 0) end();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(started) {
        controller = started;
      },
      cancel: end,
    },
    { highWaterMark: queueLimitBytes, size: (chunk) => chunk.byteLength },
  );
  // Subscribing first (synchronously with reading the buffer) means nothing published in between is lost.
  const sendChange = (event: { message: LiveChange; id: string }) => {
    const message = scope(event.message);
    if (message) send(frame(message, event.id));
  };
  unsubscribe = feed.subscribe({ event: sendChange, closed: end }, { owner, limit: streamsPerOwner });
  if (ended) return new Response(stream, { headers: liveStreamHeaders });
  const resume = feed.since(lastEventId);
  send(`retry: ${retryMs}\n\n`);
  if (resume.kind === 'reset') send(frame({ kind: 'reset', reason: resume.reason }));
  else for (const event of resume.events) sendChange(event);
  send(frame({ kind: 'ready', resumed: resume.kind === 'replay' && lastEventId !== undefined }, feed.head()));
  if (ended) return new Response(stream, { headers: liveStreamHeaders });
  // A store that cannot answer ends the stream too: the browser reconnects (or polls).
  timer = setInterval(() => void Promise.resolve(authorised()).then((holds) => (holds ? send(': heartbeat\n\n') : end()), end), heartbeatMs);
  if (signal.aborted) end();
  else signal.addEventListener('abort', end, { once: true });
  return new Response(stream, { headers: liveStreamHeaders });
}
