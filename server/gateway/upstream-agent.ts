// The one piece of connection handling proxy-chain leaves to us: retrying on another proxy.
//
// proxy-chain dials the upstream proxy it is given once (http.request through the `httpAgent` we
// may pass) and answers the client 594/595/599 when that dial fails; it has no retry hook, and its
// answer cannot carry our X-Gateway-Error. So the dial happens before proxy-chain is told anything:
// `dialUpstream` (called from prepareRequestFunction) connects to the chosen proxy, and when that
// connection is refused, reset, unreachable or times out, asks `choose` again with the failed
// proxies excluded (at most `maxRetries` more). Only a connected socket goes on: for a CONNECT
// tunnel wrapped in a one-socket `DialledAgent`, for a plain request given to the keep-alive pool
// of the proxy that took it (upstream-pool.ts; a plain request that finds a free pooled connection
// to its first choice is not dialled at all). Either way the client has seen nothing of the failed
// attempts and proxy-chain's own request writing, piping, byte counting and error answers stay in
// charge. When every attempt fails the caller answers with the reason. Every socket here goes to a
// proxy that `choose` named; nothing else is ever dialled.
//
// What it cannot cover: an upstream that accepts the TCP connection and then fails before
// answering (the request is on the wire by then; proxy-chain answers 595). A killed Squid or a
// stopped VM refuses or never answers the dial, which is what this covers.
//
// The request proxy-chain writes carries the first choice's credentials (from upstreamProxyUrl),
// so a retry only goes to a proxy whose URL has the same user and password (the fleet's Squids
// have none); others are excluded and `choose` is asked again.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

/** What `choose` answers: a Ready proxy of the fleet and its URL (and the sticky session it serves), or why there is none. */
export type ChooseResult = { proxy: string; upstreamUrl: string; session?: string } | { refusal: string; status: number; cause?: string };

export type Refusal = Extract<ChooseResult, { refusal: string }>;

export interface DialOptions {
  first: { proxy: string; upstreamUrl: string; session?: string };
  /** asks for another proxy, excluding those that failed (in the order they failed) */
  choose: (exclude: Set<string>) => ChooseResult | Promise<ChooseResult>;
  maxRetries: number;
  connectTimeoutMs: number;
  /** a dial to `proxy` failed with `cause` (an errno code such as ECONNREFUSED, or ETIMEDOUT) */
  failed: (proxy: string, cause: string) => void;
}

export interface Dialled {
  proxy: string;
  upstreamUrl: string;
  session?: string;
  socket: net.Socket;
}

const credentialsOf = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.username}:${parsed.password}`;
};

function dial(upstreamUrl: string, timeoutMs: number): Promise<net.Socket> {
  const url = new URL(upstreamUrl);
  return new Promise((resolve, reject) => {
    // No Nagle, as Node's http agent does: a tunnel's second small write (TLS, an HTTP/2 preface)
    // would otherwise wait for the proxy's delayed ACK, ~40 ms.
    const socket = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80), noDelay: true });
    const fail = (error: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(Object.assign(new Error(error.message), { code: error.code ?? 'ECONNRESET' }));
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

/** A connected socket to the first proxy that takes the connection, or why there is none. */
export async function dialUpstream(options: DialOptions): Promise<Dialled | Refusal> {
  const exclude = new Set<string>();
  const failures: string[] = [];
  const wanted = credentialsOf(options.first.upstreamUrl);
  let candidate: ChooseResult = options.first;
  for (let attempt = 0; ;) {
    if ('refusal' in candidate) return candidate;
    // A choice that names an excluded proxy again would loop: treat it as nothing left.
    if (exclude.has(candidate.proxy)) break;
    if (credentialsOf(candidate.upstreamUrl) !== wanted) {
      exclude.add(candidate.proxy);
      candidate = await options.choose(exclude);
      continue;
    }
    attempt += 1;
    try {
      const socket = await dial(candidate.upstreamUrl, options.connectTimeoutMs);
      return { ...candidate, socket };
    } catch (error) {
      const cause = (error as NodeJS.ErrnoException).code ?? 'ECONNRESET';
      options.failed(candidate.proxy, cause);
      failures.push(`${candidate.proxy} (${cause})`);
      exclude.add(candidate.proxy);
      if (attempt > options.maxRetries) break;
      candidate = await options.choose(exclude);
    }
  }
  return { refusal: `${failures.join(', ')} failed: no more proxies are tried`, status: 502, cause: 'upstream-failed' };
}

/**
 * The agent proxy-chain's http.request uses for a CONNECT tunnel: it hands over the socket dialled
 * already (keepAlive false: the tunnel's socket ends with it). Should the
 * request never ask for it (nothing in proxy-chain skips it today), the socket is closed.
 */
export class DialledAgent extends http.Agent {
  private socket: net.Socket | undefined;
  private readonly unclaimed: NodeJS.Timeout;

  constructor(socket: net.Socket) {
    super({ keepAlive: false });
    this.socket = socket;
    this.unclaimed = setTimeout(() => this.socket?.destroy(), 10_000);
    this.unclaimed.unref();
  }

  override createConnection(_options: http.ClientRequestArgs, callback?: (error: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    clearTimeout(this.unclaimed);
    const socket = this.socket;
    this.socket = undefined;
    if (socket) return socket;
    callback?.(Object.assign(new Error('the dialled upstream socket was used already'), { code: 'ECONNRESET' }), undefined as unknown as Duplex);
    return undefined;
  }
}
