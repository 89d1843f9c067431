// libvirt's keepalive program (virkeepaliveprotocol.x): PING and PONG, both MESSAGE packets with
// serial 0 and no payload. We always answer the daemon's PING; our own PINGs are optional.
import { KeepaliveTimeoutError } from './errors';
import { encodeFrame } from './framing';
import { KEEPALIVE_PROGRAM, KEEPALIVE_VERSION, KeepaliveProcedure, MessageStatus, MessageType } from './net-protocol';

export interface KeepaliveOptions {
  /** PING after this much silence from the peer. */
  intervalMs: number;
  /** Kill the connection after intervalMs * maxMissed of silence. */
  maxMissed: number;
}

const keepaliveFrame = (procedure: number): Buffer =>
  encodeFrame({
    program: KEEPALIVE_PROGRAM,
    version: KEEPALIVE_VERSION,
    procedure,
    type: MessageType.Message,
    serial: 0,
    status: MessageStatus.Ok,
  });

export const pongFrame = keepaliveFrame(KeepaliveProcedure.Pong);
const pingFrame = keepaliveFrame(KeepaliveProcedure.Ping);

/** Pings a silent peer; gives up with KeepaliveTimeoutError. Returns the timer to clear. */
export function startKeepalive(
  options: KeepaliveOptions,
  link: { silentMs: () => number; send: (frame: Buffer) => void; kill: (reason: Error) => void },
): NodeJS.Timeout {
  const { intervalMs, maxMissed } = options;
  const timer = setInterval(() => {
    const silentMs = link.silentMs();
    if (silentMs >= intervalMs * maxMissed) link.kill(new KeepaliveTimeoutError(silentMs));
    else if (silentMs >= intervalMs) link.send(pingFrame);
  }, intervalMs);
  timer.unref(); // keepalive alone must not keep a process running
  return timer;
}
