// The transport seam: anything that yields a byte Duplex to a libvirtd socket. The SSH forward
// (server/ssh), a local unix socket and an in-memory pipe in tests all fit.
import net from 'node:net';
import type { Duplex } from 'node:stream';

export interface Dialer {
  /** `signal` fires when the caller gives up on the dial (its budget ran out or it was aborted). */
  dial(signal?: AbortSignal): Promise<Duplex>;
}

/** libvirtd's read-write socket on a Debian host. */
export const DEFAULT_LIBVIRT_SOCKET = '/var/run/libvirt/libvirt-sock';

/** Connects straight to a local libvirtd unix socket (development, benchmarks, root on the host). */
export function unixSocketDialer(path: string = DEFAULT_LIBVIRT_SOCKET): Dialer {
  return {
    dial: () =>
      new Promise<Duplex>((resolve, reject) => {
        const socket = net.connect(path);
        const onError = (err: Error) => reject(err);
        socket.once('error', onError);
        socket.once('connect', () => {
          socket.off('error', onError);
          resolve(socket);
        });
      }),
  };
}
