// The transport seam for the libvirt client: one fresh SSH connection per dial, carrying one
// forwarded unix socket, so killing the socket kills exactly its own connection.

import type { Duplex } from 'node:stream';
import { startDialBudget } from './budget';
import { dialSsh, sshDialDefaults, type SshDialOptions } from './dial';
import type { ForwardedSocket } from './forwarded-socket';

export interface UnixSocketDialOptions extends SshDialOptions {
  /** Remote socket path, e.g. `/var/run/libvirt/libvirt-sock`. */
  socketPath: string;
}

/**
 * SSH dial plus the socket forward, both within `timeoutMs`/`signal`. The returned socket owns
 * the connection: end() closes both gracefully, destroy() kills the TCP connection at once.
 */
export async function dialUnixSocket(options: UnixSocketDialOptions): Promise<ForwardedSocket> {
  const timeoutMs = options.timeoutMs ?? sshDialDefaults.timeoutMs;
  const budget = startDialBudget({ signal: options.signal, timeoutMs, target: `${options.user}@${options.address}` });
  try {
    const connection = await dialSsh({ ...options, signal: budget.signal, timeoutMs });
    try {
      return await connection.forwardUnixSocket(options.socketPath, { signal: budget.signal, ownsConnection: true });
    } catch (err) {
      connection.kill();
      throw budget.signal.aborted ? budget.error('socket') : err;
    }
  } finally {
    budget.dispose();
  }
}

/** `dial(): Promise<Duplex>`, the one-method transport seam (STYLE.md §2). */
export interface SocketDialer {
  dial(signal?: AbortSignal): Promise<Duplex>;
}

/** A dialer that forwards `socketPath` over a fresh SSH connection, re-reading credentials each time. */
export function libvirtSocketDialer(options: Omit<UnixSocketDialOptions, 'signal'>): SocketDialer {
  return { dial: (signal) => dialUnixSocket({ ...options, signal }) };
}
