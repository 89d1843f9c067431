// Keep-alive connections to the fleet's proxies for plain HTTP requests (CONNECT tunnels take a
// connection each and never come here). Dialling a Squid for every small GET cost about as much
// as everything else the gateway does; proxy-chain alone reuses connections through Node's
// keep-alive global agent, and so does this, with one pool per proxy.
//
// Each proxy has its own keep-alive http.Agent (Node's pooling: free sockets, reuse, the 'free'
// hand-back, dropping a free socket the proxy closed or that idled `freeSocketMs`, well under
// Squid's idle timeout so a pooled socket is rarely stale). What is ours is where its new
// connections come from: the socket `dialUpstream` connected for a request (with its retry on
// another proxy, upstream-agent.ts) is stashed in the pool of the proxy that took it, and the
// agent's createConnection hands that out; only when the stash is empty (two requests raced for
// one free socket) does it connect itself, and then only to its own proxy. Nothing here connects
// anywhere `choose` did not name.
//
// proxy-chain is given a per-request agent that passes the request on to the proxy's pool and
// tells the gateway which socket carries it (TunnelRegistry.addRequest counts the request's own
// share of that socket's bytes). A pool whose proxy left the fleet is closed (retain()); a drain
// that is over or stop closes it too.
//
// What it cannot cover, as with proxy-chain alone: a pooled connection the proxy closes at the very
// moment a request is sent on it fails that request (proxy-chain answers it 502); one it closed
// earlier has left the pool by then. The short `freeSocketMs` keeps that moment rare.
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

/** One pool: every request in it goes to the same proxy, whatever origin proxy-chain names. */
const poolName = 'upstream';

export interface PoolOptions {
  /** a free socket idle this long is closed */
  freeSocketMs: number;
  /** a stashed socket no request claimed within this is closed */
  unclaimedMs: number;
}

/** The keep-alive pool of one fleet proxy. */
export class ProxyPool extends http.Agent {
  private readonly stash = new Set<net.Socket>();
  /** takes a stashed socket out of the stash and away from its stash-time listeners */
  private readonly claims = new WeakMap<net.Socket, () => void>();
  private readonly address: { host: string; port: number };

  constructor(
    readonly upstreamUrl: string,
    private readonly pool: PoolOptions,
  ) {
    super({ keepAlive: true, timeout: pool.freeSocketMs });
    const url = new URL(upstreamUrl);
    this.address = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) };
  }

  override getName(): string {
    return poolName;
  }

  /** A request now would reuse a connection (it may still lose it to another request first). */
  hasFreeSocket(): boolean {
    return (this.freeSockets[poolName]?.length ?? 0) > 0;
  }

  /** A connection `dialUpstream` made to this proxy, for the next request that needs one. */
  give(socket: net.Socket): void {
    // As Node's agent sets on the connections it makes: a request's small writes (headers, then
    // body chunks) go out at once, not after the proxy's delayed ACK (~40 ms each).
    socket.setNoDelay(true);
    this.stash.add(socket);
    const unclaimed = setTimeout(() => socket.destroy(), this.pool.unclaimedMs);
    unclaimed.unref();
    const drop = () => {
      clearTimeout(unclaimed);
      this.stash.delete(socket);
    };
    // Until a request owns it nothing else listens: an error must not go uncaught.
    const onError = () => socket.destroy();
    socket.on('error', onError);
    socket.once('close', drop);
    this.claims.set(socket, () => {
      drop();
      socket.removeListener('error', onError);
      socket.removeListener('close', drop);
    });
  }

  override createConnection(): Duplex {
    for (const socket of this.stash) {
      this.claims.get(socket)?.();
      if (!socket.destroyed) return socket;
    }
    // Another request took the free socket this one counted on: connect to this proxy, no other
    // (a failure is the request's error, answered by proxy-chain as any upstream error).
    return net.connect({ ...this.address, noDelay: true });
  }

  /** Closes every connection to its proxy: idle, stashed, and those of requests in flight. */
  override destroy(): void {
    for (const socket of this.stash) socket.destroy();
    super.destroy();
  }
}

/**
 * What proxy-chain's http.request gets: a keep-alive agent (so Node asks the proxy to keep the
 * connection and hands it back to the pool) that passes the request on to `pool`.
 */
export class RequestAgent extends http.Agent {
  constructor(
    private readonly pool: ProxyPool,
    private readonly carrying: (request: http.ClientRequest) => void,
  ) {
    super({ keepAlive: true });
  }

  /** Node's Agent calls this for each request (not in @types/node, stable since Node 0.x). */
  addRequest(request: http.ClientRequest, options: http.ClientRequestArgs): void {
    this.carrying(request);
    (this.pool as unknown as { addRequest(request: http.ClientRequest, options: http.ClientRequestArgs): void }).addRequest(request, options);
  }
}

/** The pools of the fleet's proxies, by proxy name. */
export class UpstreamPools {
  private readonly pools = new Map<string, ProxyPool>();

  constructor(private readonly options: PoolOptions) {}

  /**
   * `proxy`'s pool; a new one when its address changed (the old one's requests in flight end
   * normally, its idle connections close after `freeSocketMs`).
   */
  of(proxy: string, upstreamUrl: string): ProxyPool {
    let pool = this.pools.get(proxy);
    if (pool?.upstreamUrl !== upstreamUrl) {
      pool = new ProxyPool(upstreamUrl, this.options);
      this.pools.set(proxy, pool);
    }
    return pool;
  }

  /** Closes `proxy`'s pool (its drain is over). */
  close(proxy: string): void {
    this.pools.get(proxy)?.destroy();
    this.pools.delete(proxy);
  }

  /** Closes the pools of proxies not in `proxies` (they left the fleet). */
  retain(proxies: Set<string>): void {
    for (const proxy of [...this.pools.keys()]) if (!proxies.has(proxy)) this.close(proxy);
  }

  closeAll(): void {
    for (const proxy of [...this.pools.keys()]) this.close(proxy);
  }
}
