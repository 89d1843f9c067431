// The gateway's network side: a forward proxy (plain HTTP requests and CONNECT tunnels) for
// crawlers, on proxy-chain (Apify's). proxy-chain parses requests, answers Proxy-Authorization
// challenges, pipes bodies and tunnels and maps upstream failures to statuses; this class decides
// per request, in its prepareRequestFunction, who may pass and which fleet proxy carries it.
//
// No open proxy, whatever the request: proxy-chain connects *directly* to the target whenever
// prepareRequestFunction returns no upstreamProxyUrl, so every path here either returns an http://
// upstream that `choose` named with an agent of ours, or throws a RequestError (an answer to the
// client). The agents only ever connect to proxies `choose` named; the hand-written parts are the
// dial with retry on another proxy (upstream-agent.ts: proxy-chain has no retry) and the
// keep-alive pools (upstream-pool.ts). When every attempt fails, the client gets 502 with
// X-Gateway-Error naming the proxies tried (or `choose`'s own refusal).
//
// A CONNECT tunnel gets a connection of its own (dialled here, ended with the tunnel). A plain
// request reuses a pooled keep-alive connection to the proxy `choose` named when one is free, as
// proxy-chain alone does with Node's global agent (a dial per small GET was most of what the
// gateway added to it); otherwise it is dialled with retry as a tunnel is, and the connection goes
// to the pool of the proxy that took it. Either way the request is counted as a tunnel of its own.
//
// Refusals: no credentials is 407 with Proxy-Authenticate (browsers ask without credentials first,
// so this one is not counted against the client); a wrong token is 407 and counts towards the
// login's rate limit per client address (server/auth/rate-limit.ts), past which the client gets
// 429 with Retry-After and its token is not even checked; `choose` refusing is its status with
// X-Gateway-Error naming why. One log line per refusal, with the client address, never the token.
import { Server as ProxyChainServer, RequestError, type PrepareRequestFunctionOpts, type PrepareRequestFunctionResult } from 'proxy-chain';
import { defaultLoginLimits, LoginRateLimiter, type LoginLimits } from '@/server/auth/rate-limit';
import type { Logger } from '@/server/telemetry/logger';
import { TunnelRegistry, type TunnelObserver } from './tunnels';
import { DialledAgent, dialUpstream, type ChooseResult, type DialOptions, type Refusal } from './upstream-agent';
import { RequestAgent, UpstreamPools } from './upstream-pool';

export type { TunnelObserver } from './tunnels';

export type GatewayChoice = ChooseResult;

export interface GatewayRefusal {
  /** epoch ms */
  at: number;
  client: string;
  /** no-credentials, bad-token, rate-limited, or the cause `choose` named (default no-proxy) */
  cause: string;
  message: string;
}

export interface GatewayServerOptions {
  host: string;
  /** 0 picks a free port (tests); GATEWAY_PORT=0 means no gateway, which is the caller's decision */
  port: number;
  /** checks a gateway token; undefined when it is unknown, revoked or wrong */
  authenticate: (username: string, password: string, clientAddress: string) => Promise<{ tokenId: string } | undefined>;
  /** picks a Ready proxy for `username`'s selector, never one in `exclude` (those failed just now) */
  choose: (request: { username: string; exclude: Set<string> }) => GatewayChoice | Promise<GatewayChoice>;
  logger: Logger;
  /** tunnels opened, their bytes while open (at least every statsIntervalMs) and their end */
  observer?: TunnelObserver;
  /** a dial to `proxy` failed (refused, reset, unreachable, timed out): mark it suspect, probe it now */
  failed?: (proxy: string, cause: string) => void;
  /** a client refused before any proxy was chosen */
  refused?: (refusal: GatewayRefusal) => void;
  /** default 5 s */
  statsIntervalMs?: number;
  /** a proxy that does not accept the TCP connection within this is skipped; default 5 s */
  connectTimeoutMs?: number;
  /** default: the login's limits */
  loginLimits?: LoginLimits;
}

const maxRetries = 2;
/** An idle pooled connection is closed after this: well under Squid's idle timeout (2 min), so rarely stale. */
const freeSocketMs = 4_000;
/** A connection dialled for a request that found a free one after all is closed if unused this long. */
const unclaimedMs = 10_000;
const realm = 'kvm2 gateway';

/** A header value a client can read: printable ASCII only, bounded. */
const headerSafe = (text: string): string => text.replace(/[^\x20-\x7e]/g, '?').slice(0, 300);

export class GatewayServer {
  private readonly proxyChain: ProxyChainServer;
  private readonly tunnels: TunnelRegistry;
  private readonly limiter: LoginRateLimiter;
  private readonly pools = new UpstreamPools({ freeSocketMs, unclaimedMs });
  private started = false;

  constructor(private readonly options: GatewayServerOptions) {
    this.limiter = new LoginRateLimiter(options.loginLimits ?? defaultLoginLimits);
    this.proxyChain = new ProxyChainServer({
      host: options.host,
      port: options.port,
      authRealm: realm,
      prepareRequestFunction: (request) => this.prepare(request),
    });
    this.proxyChain.on('requestFailed', ({ error }: { error: Error }) => options.logger.warn({ err: error }, 'gateway request failed inside the proxy'));
    this.tunnels = new TunnelRegistry({
      intervalMs: options.statsIntervalMs ?? 5_000,
      observer: options.observer,
      closeClient: (connectionId) => this.proxyChain.closeConnection(connectionId),
    });
  }

  /** The port it listens on (the real one once started with port 0). */
  get port(): number {
    return this.proxyChain.port;
  }

  async start(): Promise<void> {
    await this.proxyChain.listen();
    this.started = true;
    this.tunnels.start();
    this.options.logger.info({ host: this.options.host, port: this.port }, 'gateway listening');
  }

  /** Stops listening and closes every open client connection and tunnel. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.tunnels.stop();
    this.tunnels.closeAll();
    this.pools.closeAll();
    await this.proxyChain.close(true);
  }

  /** Client connections open now (a leak check: 0 once every crawler has gone). */
  clientConnections(): number {
    return this.proxyChain.getConnectionIds().length;
  }

  /** Open tunnels through `proxy` (least-tunnels rotation, drain). */
  openTunnels(proxy: string): number {
    return this.tunnels.openCount(proxy);
  }

  /** Closes `proxy`'s open tunnels and its pooled connections (its drain is over); how many tunnels there were. */
  closeTunnels(proxy: string): number {
    const closed = this.tunnels.closeProxy(proxy);
    this.pools.close(proxy);
    return closed;
  }

  /** Closes the pooled connections of proxies not in `proxies` (they left the fleet). */
  retainProxies(proxies: Set<string>): void {
    this.pools.retain(proxies);
  }

  private refuse(refusal: Omit<GatewayRefusal, 'at'> & { status: number; headers?: Record<string, string> }): never {
    const { status, headers, ...fields } = refusal;
    this.options.logger.warn({ client: fields.client, status, cause: fields.cause, reason: fields.message }, 'gateway refused a client');
    this.options.refused?.({ at: Date.now(), ...fields });
    throw new RequestError(`${fields.message}\n`, status, { 'X-Gateway-Error': headerSafe(fields.message), ...headers });
  }

  private async authenticated(request: PrepareRequestFunctionOpts, client: string): Promise<string> {
    const challenge = { 'Proxy-Authenticate': `Basic realm="${realm}"` };
    if (request.password === '') {
      this.refuse({
        client,
        status: 407,
        cause: 'no-credentials',
        message: 'gateway credentials required (user: selector, password: a gateway token)',
        headers: challenge,
      });
    }
    const reservation = this.limiter.reserve(client);
    if ('retryAfterSeconds' in reservation) {
      const message = `too many refused gateway tokens from ${client}; retry in ${reservation.retryAfterSeconds} s`;
      this.refuse({ client, status: 429, cause: 'rate-limited', message, headers: { 'Retry-After': String(reservation.retryAfterSeconds) } });
    }
    let verified: { tokenId: string } | undefined;
    try {
      verified = await this.options.authenticate(request.username, request.password, client);
    } catch (error) {
      reservation.attempt.failed();
      this.options.logger.error({ err: error, client }, 'gateway token check failed');
      this.refuse({ client, status: 503, cause: 'token-check-failed', message: 'the gateway could not check the token; try again' });
    }
    if (!verified) {
      reservation.attempt.failed();
      this.refuse({ client, status: 407, cause: 'bad-token', message: 'unknown or revoked gateway token', headers: challenge });
    }
    reservation.attempt.succeeded();
    return verified.tokenId;
  }

  private async prepare(request: PrepareRequestFunctionOpts): Promise<PrepareRequestFunctionResult> {
    const client = request.request.socket.remoteAddress ?? 'unknown';
    const tokenId = await this.authenticated(request, client);
    const username = request.username;
    const choose = (exclude: Set<string>) => this.options.choose({ username, exclude });
    const refuseChoice = (choice: Refusal): never => {
      const status = Number.isInteger(choice.status) && choice.status >= 400 && choice.status <= 599 ? choice.status : 503;
      return this.refuse({ client, status, cause: choice.cause ?? 'no-proxy', message: choice.refusal });
    };
    const first = await choose(new Set());
    if ('refusal' in first) return refuseChoice(first);
    if (new URL(first.upstreamUrl).protocol !== 'http:') {
      this.refuse({ client, status: 502, cause: 'bad-upstream', message: `proxy ${first.proxy} has no http:// address` });
    }
    const dialOptions: DialOptions = {
      first,
      choose,
      maxRetries,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 5_000,
      failed: (proxy, cause) => {
        this.options.logger.warn({ proxy, cause, client }, 'gateway could not reach a proxy; trying another');
        this.options.failed?.(proxy, cause);
      },
    };
    const clientSocket = request.request.socket;
    if (request.isHttp) return this.preparePlain({ request, tokenId, dialOptions, refuseChoice });
    const dialled = await dialUpstream(dialOptions);
    if ('refusal' in dialled) return refuseChoice(dialled);
    const { proxy, session, socket } = dialled;
    // The client may have left while the token was checked or the proxy dialled, or leave before
    // the proxy answers; proxy-chain would keep a socket to a proxy that may never answer. The HTTP
    // server keeps a CONNECT client's socket half-open after its FIN, so for a tunnel not answered
    // yet (nothing read from the proxy) the client's end counts as leaving too.
    if (clientSocket.destroyed || clientSocket.readableEnded) {
      socket.destroy();
      throw new RequestError('the client closed the connection', 499);
    }
    const dropUpstream = () => socket.destroy();
    const dropUnanswered = () => socket.bytesRead === 0 && socket.destroy();
    clientSocket.once('close', dropUpstream);
    clientSocket.once('end', dropUnanswered);
    socket.once('close', () => {
      clientSocket.removeListener('close', dropUpstream);
      clientSocket.removeListener('end', dropUnanswered);
    });
    this.tunnels.add({ proxy, token: tokenId, ...(session ? { session } : {}), socket, clientConnection: request.connectionId });
    // proxy-chain writes the CONNECT to upstreamProxyUrl's origin through this agent, i.e. on the
    // socket dialled above (the first choice's URL only gives it the credentials and the form).
    return { upstreamProxyUrl: first.upstreamUrl, httpAgent: new DialledAgent(socket) };
  }

  /**
   * A plain request: on a free pooled connection to the proxy `choose` named, else on one dialled
   * (with retry) and given to the pool of the proxy that took it. Once the request runs, proxy-chain
   * ends it when the client leaves (which closes its connection, not a pooled one).
   */
  private async preparePlain(plain: {
    request: PrepareRequestFunctionOpts;
    tokenId: string;
    dialOptions: DialOptions;
    refuseChoice: (choice: Refusal) => never;
  }): Promise<PrepareRequestFunctionResult> {
    const { request, dialOptions } = plain;
    let { proxy, session } = dialOptions.first;
    let pool = this.pools.of(proxy, dialOptions.first.upstreamUrl);
    if (!pool.hasFreeSocket()) {
      const dialled = await dialUpstream(dialOptions);
      if ('refusal' in dialled) return plain.refuseChoice(dialled);
      if (request.request.socket.destroyed) {
        dialled.socket.destroy();
        throw new RequestError('the client closed the connection', 499);
      }
      ({ proxy, session } = dialled);
      pool = this.pools.of(proxy, dialled.upstreamUrl);
      pool.give(dialled.socket);
    } else if (request.request.socket.destroyed) {
      throw new RequestError('the client closed the connection', 499);
    }
    const entry = { proxy, token: plain.tokenId, ...(session ? { session } : {}), clientConnection: request.connectionId };
    const httpAgent = new RequestAgent(pool, (carried) => this.tunnels.addRequest({ ...entry, request: carried }));
    // proxy-chain writes the request to upstreamProxyUrl's origin through this agent, i.e. through
    // the pool of `proxy` (the first choice's URL only gives it the credentials and the form).
    return { upstreamProxyUrl: dialOptions.first.upstreamUrl, httpAgent };
  }
}
