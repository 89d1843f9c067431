// Typed errors of the SSH transport. Every error carries a stable `code`, whether retrying can
// help (`permanent`), and the underlying error as `cause`. Callers classify on `code` and
// `permanent`, never on message text. Messages name users and addresses, and a credentials file by
// its role ("the known_hosts file"): the message travels to API responses, which must not show
// the server's file layout; the path is in `file`, for the log. They never contain key bytes or
// known_hosts content.

export type SshDialStage = 'credentials' | 'tcp' | 'ssh' | 'socket';

export type SshErrorCode =
  | 'SSH_CREDENTIALS_MISSING'
  | 'SSH_CREDENTIALS_INVALID'
  | 'SSH_TCP'
  | 'SSH_TIMEOUT'
  | 'SSH_ABORTED'
  | 'SSH_HANDSHAKE'
  | 'SSH_AUTH_FAILED'
  | 'SSH_HOST_KEY_UNKNOWN'
  | 'SSH_HOST_KEY_CHANGED'
  | 'SSH_HOST_KEY_REVOKED'
  | 'SSH_SOCKET_REFUSED'
  | 'SSH_CHANNEL_CLOSED'
  | 'SSH_INVALID_ADDRESS'
  | 'SSH_DEAD';

// Whether an error of this code can go away by retrying without anyone changing a file or a host.
// A missing file is transient (the Secret may not have landed yet); a file that does not parse,
// a refused key and a host-key mismatch need a human.
export const permanentByCode: Record<SshErrorCode, boolean> = {
  SSH_CREDENTIALS_MISSING: false,
  SSH_CREDENTIALS_INVALID: true,
  SSH_TCP: false,
  SSH_TIMEOUT: false,
  SSH_ABORTED: false,
  SSH_HANDSHAKE: false,
  SSH_AUTH_FAILED: true,
  SSH_HOST_KEY_UNKNOWN: true,
  SSH_HOST_KEY_CHANGED: true,
  SSH_HOST_KEY_REVOKED: true,
  SSH_SOCKET_REFUSED: false,
  SSH_CHANNEL_CLOSED: false,
  SSH_INVALID_ADDRESS: true,
  SSH_DEAD: false,
};

export class SshError extends Error {
  readonly code: SshErrorCode;
  readonly permanent: boolean;

  constructor(code: SshErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.permanent = permanentByCode[code];
  }
}

/** A dial that failed, with the stage it failed in. */
export class SshDialError extends SshError {
  readonly stage: SshDialStage;
  /** the credentials file at fault (key or known_hosts), for the log; never in the message */
  readonly file?: string;

  constructor(options: { code: SshErrorCode; stage: SshDialStage; message: string; cause?: unknown; file?: string }) {
    super(options.code, options.message, { cause: options.cause });
    this.stage = options.stage;
    if (options.file !== undefined) this.file = options.file;
  }
}

export type HostKeyProblem = 'unknown' | 'changed' | 'revoked';

const hostKeyCodes: Record<HostKeyProblem, SshErrorCode> = {
  unknown: 'SSH_HOST_KEY_UNKNOWN',
  changed: 'SSH_HOST_KEY_CHANGED',
  revoked: 'SSH_HOST_KEY_REVOKED',
};

/** The server presented a host key that known_hosts does not accept. Always permanent. */
export class HostKeyError extends SshDialError {
  readonly reason: HostKeyProblem;
  /** The name looked up in known_hosts: `host` for port 22, `[host]:port` otherwise. */
  readonly knownHostsName: string;
  /** SHA256 fingerprint of the presented key, as `ssh-keygen -l` prints it (public, not secret). */
  readonly fingerprint: string;

  constructor(options: { reason: HostKeyProblem; knownHostsName: string; fingerprint: string; message: string; file?: string }) {
    super({ code: hostKeyCodes[options.reason], stage: 'ssh', message: options.message, ...(options.file !== undefined ? { file: options.file } : {}) });
    this.reason = options.reason;
    this.knownHostsName = options.knownHostsName;
    this.fingerprint = options.fingerprint;
  }
}

export type SshDeathReason =
  | 'keepalive-timeout' // a keepalive request went unanswered for the whole timeout
  | 'keepalive-failed' // a keepalive request could not be sent or was answered by a dying link
  | 'closed' // the TCP connection ended (peer hung up, or close() was called)
  | 'error' // ssh2 or the socket reported an error
  | 'killed'; // kill() was called

/** An established SSH connection is gone; everything that ran over it is gone too. */
export class SshConnectionDeadError extends SshError {
  readonly reason: SshDeathReason;

  constructor(options: { reason: SshDeathReason; message: string; cause?: unknown }) {
    super('SSH_DEAD', options.message, { cause: options.cause });
    this.reason = options.reason;
  }
}

export function isSshError(err: unknown): err is SshError {
  return err instanceof SshError;
}
