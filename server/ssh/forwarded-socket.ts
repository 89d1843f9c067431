// A unix socket on the remote host, forwarded over SSH, as a plain Node Duplex.
//
// It wraps ssh2's channel because the channel's own stream semantics do not fit a transport
// seam: its destroy() is a graceful end+close that emits nothing, a write after the peer closed
// is silently never acknowledged, and the death of the SSH connection only shows up as EOF.
// Here instead:
// - end(): graceful half-close (EOF to the remote socket); the peer's EOF ends the readable side.
// - destroy(): when the socket owns its connection (dialUnixSocket), kills the TCP connection at
//   once, lock-free, no close handshake (see the spec's "Timeouts and connections"); otherwise
//   closes just this channel.
// - the SSH connection dying destroys this socket with an SshConnectionDeadError ('error').
// - a write after the peer closed the channel fails with SSH_CHANNEL_CLOSED instead of hanging.

import { Duplex } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { SshError } from './errors';
import type { SshConnection } from './connection';

export class ForwardedSocket extends Duplex {
  readonly connection: SshConnection;
  readonly socketPath: string;
  readonly #channel: ClientChannel;
  readonly #ownsConnection: boolean;
  readonly #stopWatchingConnection: () => void;
  #peerEnded = false;
  #channelClosed = false;
  #pendingWrite: ((err?: Error | null) => void) | undefined;

  constructor(channel: ClientChannel, options: { connection: SshConnection; socketPath: string; ownsConnection: boolean }) {
    super({ allowHalfOpen: false });
    this.#channel = channel;
    this.connection = options.connection;
    this.socketPath = options.socketPath;
    this.#ownsConnection = options.ownsConnection;

    channel.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) channel.pause();
    });
    channel.on('end', () => {
      this.#peerEnded = true;
      this.push(null);
    });
    channel.on('drain', () => this.#settlePendingWrite());
    channel.on('close', () => {
      this.#channelClosed = true;
      this.#settlePendingWrite(this.#closedError());
    });
    channel.on('error', (err: Error) => this.destroy(err));
    this.#stopWatchingConnection = options.connection.onDead((err) => this.destroy(err));
  }

  override _read(): void {
    this.#channel.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    if (this.#channelClosed) return callback(this.#closedError());
    if (this.#channel.write(chunk)) return callback();
    this.#pendingWrite = callback;
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.#channel.end();
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.#stopWatchingConnection();
    this.#settlePendingWrite(err ?? this.#closedError());
    const cleanEnd = err === null && this.#peerEnded;
    if (!this.#ownsConnection) {
      if (!this.#channelClosed) this.#channel.close();
    } else if (cleanEnd) {
      void this.connection.close();
    } else {
      this.connection.kill();
    }
    callback(err);
  }

  #settlePendingWrite(err?: Error): void {
    const callback = this.#pendingWrite;
    this.#pendingWrite = undefined;
    callback?.(err);
  }

  #closedError(): SshError {
    return new SshError('SSH_CHANNEL_CLOSED', `forwarded socket ${this.socketPath} on ${this.connection.target} is closed`);
  }
}
