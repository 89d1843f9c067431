// The gateway's open tunnels: one per socket to a fleet proxy (a CONNECT tunnel, or a plain request
// in flight), with whose token and session it carries. It counts them per proxy (rotation's
// "least open tunnels", the drain), closes one proxy's or all of them, and reports each tunnel's
// bytes while it is open, at least every `intervalMs`, not only when it closes.
//
// The counts are the upstream socket's own (bytes read from the proxy = in, written to it = out):
// proxy-chain's getConnectionStats(id) sums exactly these over a *client* connection, but a
// keep-alive client connection can carry requests through several proxies one after another, so
// per tunnel the socket is the exact source. Reports are cumulative per tunnel; the observer adds
// the growth (server/gateway/accounting.ts), so a final report is never counted twice.
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
  socket: Socket;
  /** proxy-chain's id of the client connection it serves */
  clientConnection: number;
  closedBy?: string;
  error?: string;
}

export interface TunnelRegistryOptions {
  intervalMs: number;
  observer?: TunnelObserver;
  /** ends the client side too when the gateway closes a tunnel itself */
  closeClient: (clientConnection: number) => void;
}

const countsOf = (socket: Socket): ByteCounts => ({ bytesIn: socket.bytesRead, bytesOut: socket.bytesWritten });

export class TunnelRegistry {
  private nextId = 1;
  private readonly open = new Map<number, OpenTunnel>();
  private readonly perProxy = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TunnelRegistryOptions) {}

  start(): void {
    this.timer ??= setInterval(() => {
      for (const tunnel of this.open.values()) this.options.observer?.progress(tunnel.id, countsOf(tunnel.socket));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A socket to `proxy` is up and handed to proxy-chain for `clientConnection`. */
  add(entry: { proxy: string; token: string; session?: string; socket: Socket; clientConnection: number }): void {
    const tunnel: OpenTunnel = { id: this.nextId++, proxy: entry.proxy, socket: entry.socket, clientConnection: entry.clientConnection };
    this.open.set(tunnel.id, tunnel);
    this.perProxy.set(entry.proxy, (this.perProxy.get(entry.proxy) ?? 0) + 1);
    this.options.observer?.opened({ connection: tunnel.id, proxy: entry.proxy, token: entry.token, ...(entry.session ? { session: entry.session } : {}) });
    entry.socket.on('error', (error: NodeJS.ErrnoException) => (tunnel.error ??= error.code ?? 'error'));
    entry.socket.once('close', () => {
      this.open.delete(tunnel.id);
      const left = (this.perProxy.get(tunnel.proxy) ?? 1) - 1;
      if (left > 0) this.perProxy.set(tunnel.proxy, left);
      else this.perProxy.delete(tunnel.proxy);
      this.options.observer?.closed(tunnel.id, { ...countsOf(tunnel.socket), result: tunnel.closedBy ?? tunnel.error ?? 'ok' });
    });
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
    tunnel.socket.destroy();
    this.options.closeClient(tunnel.clientConnection);
  }
}
