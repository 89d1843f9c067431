// An established, authenticated SSH connection (what dialSsh resolves to). It watches its own
// health (keepalive, socket errors, peer hang-up), forwards remote unix sockets, and can be
// ended gracefully (close) or killed on the spot (kill).

import type { Socket } from 'node:net';
import type { Client, ClientChannel } from 'ssh2';
import { SshConnectionDeadError, SshDialError, type SshDeathReason } from './errors';
import { ForwardedSocket } from './forwarded-socket';
import { startKeepalive, type KeepaliveOptions } from './keepalive';
import { errorMessage } from '@/lib/error-message';

export type DeadListener = (err: SshConnectionDeadError) => void;

const gracefulCloseMs = 5_000;

export class SshConnection {
  /** `user@host:port`, for messages and logs. */
  readonly target: string;
  readonly #client: Client;
  readonly #socket: Socket;
  readonly #deadListeners = new Set<DeadListener>();
  readonly #stopKeepalive: () => void;
  #dead: SshConnectionDeadError | undefined;

  constructor(options: { client: Client; socket: Socket; target: string; keepalive: KeepaliveOptions }) {
    this.#client = options.client;
    this.#socket = options.socket;
    this.target = options.target;

    this.#client.on('error', (err: Error) => {
      this.#markDead('error', err);
      this.#socket.destroy();
    });
    this.#client.on('close', () => this.#markDead('closed'));
    this.#socket.on('close', () => this.#markDead('closed'));
    this.#stopKeepalive = startKeepalive(this.#client, {
      ...options.keepalive,
      onFailure: ({ reason, cause }) => {
        this.#markDead(reason, cause);
        this.#socket.destroy();
      },
    });
  }

  /** Set once the connection is gone; never cleared. */
  get dead(): SshConnectionDeadError | undefined {
    return this.#dead;
  }

  /** Calls `listener` once when the connection dies (at once, asynchronously, if it already has). */
  onDead(listener: DeadListener): () => void {
    const dead = this.#dead;
    if (dead) {
      queueMicrotask(() => listener(dead));
      return () => {};
    }
    this.#deadListeners.add(listener);
    return () => this.#deadListeners.delete(listener);
  }

  /**
   * Opens a `direct-streamlocal@openssh.com` channel to `socketPath` on the remote host.
   * Rejects with SSH_SOCKET_REFUSED (stage `socket`, transient) when sshd refuses, e.g. the
   * socket does not exist or the user may not open it; SSH_DEAD when the connection is gone.
   * With `ownsConnection`, destroying the returned socket kills this whole connection.
   */
  forwardUnixSocket(socketPath: string, options: { signal?: AbortSignal; ownsConnection?: boolean } = {}): Promise<ForwardedSocket> {
    const { signal, ownsConnection = false } = options;
    return new Promise((resolve, reject) => {
      if (this.#dead) return reject(this.#dead);
      let settled = false;
      const settle = (finish: () => void) => {
        if (settled) return false;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        stopWatching();
        finish();
        return true;
      };
      const onAbort = () => settle(() => reject(this.#forwardError(socketPath, { code: 'SSH_ABORTED', cause: signal?.reason })));
      const stopWatching = this.onDead((err) => settle(() => reject(err)));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });

      const onChannel = (err: Error | undefined, channel: ClientChannel) => {
        if (err) {
          settle(() => reject(this.#dead ?? this.#forwardError(socketPath, { code: 'SSH_SOCKET_REFUSED', cause: err })));
          return;
        }
        const accepted = settle(() => resolve(new ForwardedSocket(channel, { connection: this, socketPath, ownsConnection })));
        if (!accepted) channel.close(); // the caller gave up while sshd was opening it
      };
      try {
        this.#client.openssh_forwardOutStreamLocal(socketPath, onChannel);
      } catch (err) {
        settle(() => reject(this.#dead ?? this.#forwardError(socketPath, { code: 'SSH_SOCKET_REFUSED', cause: err })));
      }
    });
  }

  /**
   * Destroys the TCP connection at once. Lock-free: no disconnect message, no channel close, so
   * it cannot queue behind a write stuck on a host that went away. Everything over it dies.
   */
  kill(): void {
    this.#markDead('killed');
    this.#socket.destroy();
  }

  /** Ends the connection gracefully; kills it if the peer has not hung up within 5 s. */
  close(): Promise<void> {
    if (this.#socket.destroyed) {
      this.#markDead('closed');
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const fallback = setTimeout(() => this.#socket.destroy(), gracefulCloseMs);
      this.#socket.once('close', () => {
        clearTimeout(fallback);
        resolve();
      });
      this.#markDead('closed');
      this.#client.end();
    });
  }

  #markDead(reason: SshDeathReason, cause?: unknown): void {
    if (this.#dead) return;
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    const message = `ssh connection to ${this.target} ${deathText[reason]}${detail}`;
    const err = new SshConnectionDeadError({ reason, cause, message });
    this.#dead = err;
    this.#stopKeepalive();
    const listeners = [...this.#deadListeners];
    this.#deadListeners.clear();
    for (const listener of listeners) listener(err);
  }

  #forwardError(socketPath: string, options: { code: 'SSH_SOCKET_REFUSED' | 'SSH_ABORTED'; cause: unknown }) {
    const what = options.code === 'SSH_ABORTED' ? 'aborted by the caller' : `refused by sshd (${errorMessage(options.cause)})`;
    return new SshDialError({
      code: options.code,
      stage: 'socket',
      message: `forwarding unix socket ${socketPath} over ssh to ${this.target}: ${what}`,
      cause: options.cause,
    });
  }
}

const deathText: Record<SshDeathReason, string> = {
  'keepalive-timeout': 'died', // the cause says how long the keepalive went unanswered
  'keepalive-failed': 'died: a keepalive request failed',
  closed: 'is closed',
  error: 'died on an error',
  killed: 'was killed',
};
