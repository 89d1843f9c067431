// SSH-level keepalive: a `keepalive@openssh.com` global request every `intervalMs`; the link is
// declared dead when a request cannot be sent, or when its reply has not arrived `timeoutMs` after
// it was sent. Either reply (OpenSSH answers REQUEST_FAILURE to this name) proves the peer alive.
//
// ssh2 has a keepalive of its own, but it ties the reply timeout to the interval and reports a
// timeout as a generic 'error'; we need both intervals as options (tests use small ones) and a
// typed reason. ssh2 offers no public way to send an arbitrary global request, so this uses the
// two internals its own keepalive uses (`_protocol.ping()` and the FIFO `_callbacks` of global
// request replies). ssh2 is pinned by the lockfile; the shape is checked when a keepalive starts
// (ssh2 creates both on connect) so an upgrade that changes it fails the dial loudly instead of
// silently dropping keepalives.

import type { Client } from 'ssh2';

export interface KeepaliveOptions {
  intervalMs: number;
  timeoutMs: number;
}

export type KeepaliveFailure = { reason: 'keepalive-timeout' | 'keepalive-failed'; cause?: unknown };

// ssh2 calls a global-request callback with `false` (REQUEST_SUCCESS), `true` (REQUEST_FAILURE),
// or an Error when the connection closes with the request outstanding.
type GlobalReplyCallback = (reply: boolean | Error) => void;

interface Ssh2ClientInternals {
  _protocol?: { ping?: () => void };
  _callbacks?: GlobalReplyCallback[];
}

/** Starts the keepalive loop; returns a function that stops it. `onFailure` is called at most once. */
export function startKeepalive(client: Client, options: KeepaliveOptions & { onFailure: (failure: KeepaliveFailure) => void }): () => void {
  const internals = client as unknown as Ssh2ClientInternals;
  const protocol = internals._protocol;
  const replyCallbacks = internals._callbacks;
  if (typeof protocol?.ping !== 'function' || !Array.isArray(replyCallbacks)) {
    throw new Error('ssh2 internals changed: cannot send keepalive@openssh.com requests');
  }
  let replyTimer: NodeJS.Timeout | undefined;
  let stopped = false;

  const stop = () => {
    stopped = true;
    clearInterval(tick);
    clearTimeout(replyTimer);
  };
  const fail = (failure: KeepaliveFailure) => {
    if (stopped) return;
    stop();
    options.onFailure(failure);
  };

  const sendPing = () => {
    if (replyTimer !== undefined) return; // the previous request is still within its timeout
    const sentAt = Date.now();
    replyTimer = setTimeout(() => {
      fail({ reason: 'keepalive-timeout', cause: new Error(`no reply to keepalive@openssh.com within ${Date.now() - sentAt} ms`) });
    }, options.timeoutMs);
    replyTimer.unref();
    replyCallbacks.push((reply) => {
      if (reply instanceof Error) return fail({ reason: 'keepalive-failed', cause: reply });
      clearTimeout(replyTimer);
      replyTimer = undefined;
    });
    try {
      protocol.ping?.();
    } catch (err) {
      fail({ reason: 'keepalive-failed', cause: err });
    }
  };

  const tick = setInterval(sendPing, options.intervalMs);
  tick.unref();
  return stop;
}
