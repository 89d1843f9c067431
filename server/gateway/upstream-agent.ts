// The one piece of connection handling proxy-chain leaves to us: retrying on another proxy.
//
// proxy-chain dials the upstream proxy it is given once (http.request through the agent we pass
// as `httpAgent`) and answers the client 594/595/599 when that dial fails; it has no retry hook.
// It does take a per-request `http.Agent`, and an agent's `createConnection` may call back
// asynchronously, so this agent makes the dial itself: the chosen proxy first, and when that
// connection is refused, reset, unreachable or times out, it asks `choose` again with the
// failed proxies excluded (at most `maxRetries` more). Only then does proxy-chain get a socket,
// so the client has seen nothing of the failed attempts and proxy-chain's own piping, byte
// counting and error answers stay in charge. Every socket it hands out goes to a proxy that
// `choose` named; it never dials anything else.
//
// What it cannot cover: an upstream that accepts the TCP connection and then fails before
// answering (its request is already on the wire, proxy-chain answers 595). A killed Squid or a
// stopped VM refuses or never answers the dial, which is what this covers.
//
// The request proxy-chain writes carries the first choice's credentials, so a retry only goes to
// a proxy whose URL has the same user and password (the fleet's Squids have none); others are
// excluded and `choose` is asked again.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

/** What `choose` answers: a Ready proxy of the fleet and its URL (and the sticky session it serves), or why there is none. */
export type ChooseResult = { proxy: string; upstreamUrl: string; session?: string } | { refusal: string; status: number; cause?: string };

export interface UpstreamAttemptOptions {
  first: { proxy: string; upstreamUrl: string; session?: string };
  /** asks for another proxy, excluding those that failed */
  choose: (exclude: Set<string>) => ChooseResult;
  maxRetries: number;
  connectTimeoutMs: number;
  /** a dial to `proxy` failed with `cause` (an errno code such as ECONNREFUSED, or ETIMEDOUT) */
  failed: (proxy: string, cause: string) => void;
  /** the connection to `proxy` is up; its socket is handed to proxy-chain */
  connected: (proxy: string, socket: net.Socket, session: string | undefined) => void;
}

/** An error proxy-chain maps to its status (`code` ECONNREFUSED → 594, ECONNRESET → 595). */
class UpstreamDialError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamDialError';
  }
}

function credentialsOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.username}:${parsed.password}`;
}

function dial(upstreamUrl: string, timeoutMs: number): Promise<net.Socket> {
  const url = new URL(upstreamUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) });
    const fail = (error: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(new UpstreamDialError(error.code ?? 'ECONNRESET', error.message));
    };
    socket.setTimeout(timeoutMs, () => fail(Object.assign(new Error(`no connection within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.removeListener('error', fail);
      resolve(socket);
    });
  });
}

async function connectWithRetry(options: UpstreamAttemptOptions): Promise<net.Socket> {
  const exclude = new Set<string>();
  const wanted = credentialsOf(options.first.upstreamUrl);
  let candidate: ChooseResult = options.first;
  let lastError: UpstreamDialError | undefined;
  for (let attempt = 0; attempt <= options.maxRetries;) {
    // A choice that names an excluded proxy again would loop: treat it as nothing left.
    if ('refusal' in candidate || exclude.has(candidate.proxy)) break;
    if (credentialsOf(candidate.upstreamUrl) !== wanted) {
      exclude.add(candidate.proxy);
      candidate = options.choose(exclude);
      continue;
    }
    attempt += 1;
    try {
      const socket = await dial(candidate.upstreamUrl, options.connectTimeoutMs);
      options.connected(candidate.proxy, socket, candidate.session);
      return socket;
    } catch (error) {
      lastError = error as UpstreamDialError;
      options.failed(candidate.proxy, lastError.code);
      exclude.add(candidate.proxy);
      if (attempt > options.maxRetries) break;
      candidate = options.choose(exclude);
    }
  }
  throw lastError ?? new UpstreamDialError('ECONNREFUSED', 'no eligible proxy left to retry on');
}

/** A one-request agent: proxy-chain asks it for the socket to the upstream proxy. */
export class UpstreamAgent extends http.Agent {
  constructor(private readonly attempt: UpstreamAttemptOptions) {
    super({ keepAlive: false });
  }

  override createConnection(_options: http.ClientRequestArgs, callback?: (error: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    connectWithRetry(this.attempt).then(
      (socket) => callback?.(null, socket),
      (error: Error) => callback?.(error, undefined as unknown as Duplex),
    );
    return undefined;
  }
}
