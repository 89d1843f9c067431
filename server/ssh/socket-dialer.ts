// The transport seam for the libvirt client: one fresh SSH connection per dial, carrying one
// forwarded unix socket, so killing the socket kills exactly its own connection.

import type { Duplex } from 'node:stream';
import { startDialBudget } from './budget';
import { formatEndpoint } from './address';
import { dialWithin, parseEndpoint, sshDialDefaults, waitForDialSlot, type SshDialOptions } from './dial';
import type { ForwardedSocket } from './forwarded-socket';

export interface UnixSocketDialOptions extends SshDialOptions {
  /** Remote socket path, e.g. `/var/run/libvirt/libvirt-sock`. */
  socketPath: string;
}

/**
 * SSH dial plus the socket forward, both within `timeoutMs`/`signal`. The returned socket owns
 * the connection: end() closes both gracefully, destroy() kills the TCP connection at once.
 * Like dialSsh, it waits for a slot of the process's dial limiter first (only `signal` ends that
 * wait) and `timeoutMs` counts from when it is granted; the slot goes back once authenticated.
 */
export async function dialUnixSocket(options: UnixSocketDialOptions): Promise<ForwardedSocket> {
  const timeoutMs = options.timeoutMs ?? sshDialDefaults.timeoutMs;
  const endpoint = parseEndpoint(options.address);
  const target = `${options.user}@${formatEndpoint(endpoint)}`;
  const slot = await waitForDialSlot(endpoint, { signal: options.signal, target, urgent: options.urgent });
  options.onStart?.();
  const budget = startDialBudget({ signal: options.signal, timeoutMs, target });
  try {
    let connection;
    try {
      connection = await dialWithin(endpoint, { options: { ...options, signal: budget.signal, timeoutMs }, target, budget, onConnected: slot.watch });
    } finally {
      slot.release();
    }
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
