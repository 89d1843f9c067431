// The gateway's open tunnels: a CONNECT tunnel (its own socket to a fleet proxy) or a plain request
// in flight (on a pooled keep-alive socket, upstream-pool.ts), with whose token and session it
// carries. It counts them per proxy (rotation's "least open tunnels", the drain), closes one
// proxy's or all of them, and reports each tunnel's bytes while it is open, at least every
// `intervalMs`, not only when it closes.
//
// The counts are the upstream socket's own (bytes read from the proxy = in, written to it = out):
// proxy-chain's getConnectionStats(id) sums exactly these over a *client* connection, but a
// keep-alive client connection can carry requests through several proxies one after another, so
// per tunnel the socket is the exact source. A pooled socket carries requests of several tokens one
// after another, so a request counts its socket's bytes from when it got the socket (a baseline)
// to when the request closed: Node hands the socket to the next request only after that. Reports
// are cumulative per tunnel; the observer adds the growth (server/gateway/accounting.ts), so a
// final report is never counted twice.
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';

export interface ByteCounts {
  bytesIn: number;
  bytesOut: number;
}

/** What the gateway tells about its tunnels (GatewayAccounting has this shape). */
export interface TunnelObserver {
  opened(tunnel: { connection: number; proxy: string; token: string; session?: string }): void;
  /** cumulative counts of an open tunnel */
  progress(connection: number, counts: ByteCounts): void;
  /** final counts; result `ok`, an errno code of the upstream socket (ECONNRESET...), `drained` or `stopped` */
  closed(connection: number, final: ByteCounts & { result: string }): void;
}

interface OpenTunnel {
  id: number;
  proxy: string;
  counts: () => ByteCounts;
  /** closes what carries it: the tunnel's socket, or the request (and its socket) */
  destroy: () => void;
  /** proxy-chain's id of the client connection it serves */
  clientConnection: number;
  closedBy?: string;
  error?: string;
}

interface TunnelEntry {
  proxy: string;
  token: string;
  session?: string;
  clientConnection: number;
}

export interface TunnelRegistryOptions {
  intervalMs: number;
  observer?: TunnelObserver;
  /** ends the client side too when the gateway closes a tunnel itself */
  closeClient: (clientConnection: number) => void;
}

const countsOf = (socket: Socket): ByteCounts => ({ bytesIn: socket.bytesRead, bytesOut: socket.bytesWritten });
const none: ByteCounts = { bytesIn: 0, bytesOut: 0 };

export class TunnelRegistry {
  private nextId = 1;
  private readonly open = new Map<number, OpenTunnel>();
  private readonly perProxy = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TunnelRegistryOptions) {}

  start(): void {
    this.timer ??= setInterval(() => {
      for (const tunnel of this.open.values()) this.options.observer?.progress(tunnel.id, tunnel.counts());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A socket to `proxy` is up and handed to proxy-chain for `clientConnection` (a CONNECT tunnel). */
  add(entry: TunnelEntry & { socket: Socket }): void {
    const { socket } = entry;
    const tunnel = this.opened(entry, { counts: () => countsOf(socket), destroy: () => socket.destroy() });
    socket.on('error', (error: NodeJS.ErrnoException) => (tunnel.error ??= error.code ?? 'error'));
    socket.once('close', () => this.ended(tunnel));
  }

  /** A plain request to `proxy`, on whichever pooled socket its agent gives it (none yet). */
  addRequest(entry: TunnelEntry & { request: ClientRequest }): void {
    const { request } = entry;
    let socket: Socket | undefined;
    let baseline = none;
    let final: ByteCounts | undefined;
    const counts = (): ByteCounts => {
      if (final) return final;
      if (!socket) return none;
      const now = countsOf(socket);
      return { bytesIn: now.bytesIn - baseline.bytesIn, bytesOut: now.bytesOut - baseline.bytesOut };
    };
    const tunnel = this.opened(entry, { counts, destroy: () => request.destroy() });
    // The socket's errors are the proxy's; the request's own (a "socket hang up" when proxy-chain
    // ends it because the client left) are not. The socket outlives the request, so the listener
    // goes when the request does.
    const failed = (error: NodeJS.ErrnoException) => (tunnel.error ??= error.code ?? 'error');
    request.once('socket', (given: Socket) => {
      socket = given;
      baseline = countsOf(given);
      given.on('error', failed);
    });
    request.once('close', () => {
      socket?.removeListener('error', failed);
      final = counts();
      this.ended(tunnel);
    });
  }

  private opened(entry: TunnelEntry, carrier: Pick<OpenTunnel, 'counts' | 'destroy'>): OpenTunnel {
    const tunnel: OpenTunnel = { id: this.nextId++, proxy: entry.proxy, clientConnection: entry.clientConnection, ...carrier };
    this.open.set(tunnel.id, tunnel);
    this.perProxy.set(entry.proxy, (this.perProxy.get(entry.proxy) ?? 0) + 1);
    this.options.observer?.opened({ connection: tunnel.id, proxy: entry.proxy, token: entry.token, ...(entry.session ? { session: entry.session } : {}) });
    return tunnel;
  }

  private ended(tunnel: OpenTunnel): void {
    this.open.delete(tunnel.id);
    const left = (this.perProxy.get(tunnel.proxy) ?? 1) - 1;
    if (left > 0) this.perProxy.set(tunnel.proxy, left);
    else this.perProxy.delete(tunnel.proxy);
    this.options.observer?.closed(tunnel.id, { ...tunnel.counts(), result: tunnel.closedBy ?? tunnel.error ?? 'ok' });
  }

  openCount(proxy: string): number {
    return this.perProxy.get(proxy) ?? 0;
  }

  /** Closes `proxy`'s open tunnels (its drain is over); how many there were. */
  closeProxy(proxy: string): number {
    const tunnels = [...this.open.values()].filter((tunnel) => tunnel.proxy === proxy);
    for (const tunnel of tunnels) this.close(tunnel, 'drained');
    return tunnels.length;
  }

  closeAll(): void {
    for (const tunnel of [...this.open.values()]) this.close(tunnel, 'stopped');
  }

  private close(tunnel: OpenTunnel, reason: string): void {
    tunnel.closedBy ??= reason;
    tunnel.destroy();
    this.options.closeClient(tunnel.clientConnection);
  }
}
