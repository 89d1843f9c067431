// Typed errors of the libvirt RPC layer. Every class has a stable string `code` (compare that,
// never the message) and keeps what caused it in `cause`. LibvirtError is the daemon's own
// error: its `code` is libvirt's number and `codeName` the stable name (ErrNoDomain, ...).
import { libvirtErrorCodeName, libvirtErrorCodes, libvirtErrorDomainName, type LibvirtErrorCodeName } from './error-codes';

export { libvirtErrorCodes, libvirtErrorCodeName, libvirtErrorDomainName, type LibvirtErrorCodeName };

/** The fields of remote_error / virNetMessageError that carry information. */
export interface RemoteErrorFields {
  code: number;
  domain: number;
  message: string | null;
  level: number;
  str1: string | null;
  str2: string | null;
  str3: string | null;
  int1: number;
  int2: number;
}

/** An error reported by libvirtd (a REPLY or STREAM packet with status ERROR). */
export class LibvirtError extends Error {
  override readonly name: string = 'LibvirtError';
  /** libvirt's virErrorNumber, e.g. 42. */
  readonly code: number;
  /** The stable name of `code`, e.g. 'ErrNoDomain'. */
  readonly codeName: string;
  /** virErrorDomain: which part of libvirt raised it, e.g. 10 (FromQemu). */
  readonly domain: number;
  readonly domainName: string;
  /** virErrorLevel: 1 warning, 2 error. */
  readonly level: number;
  /** The procedure the error answered, e.g. 'domainLookupByName'. */
  readonly procedure: string;
  readonly str1: string | null;
  readonly str2: string | null;
  readonly str3: string | null;
  readonly int1: number;
  readonly int2: number;

  constructor(procedure: string, fields: RemoteErrorFields) {
    const codeName = libvirtErrorCodeName(fields.code);
    super(fields.message ?? `${codeName} (no message from libvirt)`);
    this.code = fields.code;
    this.codeName = codeName;
    this.domain = fields.domain;
    this.domainName = libvirtErrorDomainName(fields.domain);
    this.level = fields.level;
    this.procedure = procedure;
    this.str1 = fields.str1;
    this.str2 = fields.str2;
    this.str3 = fields.str3;
    this.int1 = fields.int1;
    this.int2 = fields.int2;
  }
}

/**
 * DOMAIN_OPEN_CONSOLE refused because another client holds the console (libvirtd answers
 * ErrOperationFailed, "Active console session exists for this domain"). Opening again with
 * DomainConsoleFlags.Force takes it over; the other client's stream then fails.
 */
export class ConsoleBusyError extends LibvirtError {
  override readonly name = 'ConsoleBusyError';
}

/** True when `err` is a LibvirtError with the named code, e.g. isLibvirtError(e, 'ErrNoDomain'). */
export function isLibvirtError(err: unknown, codeName?: LibvirtErrorCodeName): err is LibvirtError {
  if (!(err instanceof LibvirtError)) return false;
  return codeName === undefined || err.code === libvirtErrorCodes[codeName];
}

/** Base of the client-side errors: each subclass fixes a stable `code`. */
export abstract class RpcError extends Error {
  abstract readonly code: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The peer sent bytes that are not a valid libvirt RPC frame or payload. Fatal to the connection. */
export class ProtocolError extends RpcError {
  override readonly name = 'ProtocolError';
  readonly code = 'LIBVIRT_PROTOCOL';
}

/** Arguments that cannot be encoded (out of range, over a declared limit). The call is refused locally. */
export class EncodeError extends RpcError {
  override readonly name = 'EncodeError';
  readonly code = 'LIBVIRT_ENCODE';
}

/** A message over VIR_NET_MESSAGE_MAX (16 MiB), outgoing (refused locally) or incoming (fatal). */
export class MessageTooLargeError extends RpcError {
  override readonly name = 'MessageTooLargeError';
  readonly code = 'LIBVIRT_MESSAGE_TOO_LARGE';
  constructor(
    readonly direction: 'incoming' | 'outgoing',
    readonly size: number,
    readonly limit: number,
  ) {
    super(`${direction} libvirt message of ${size} bytes exceeds the ${limit}-byte limit`);
  }
}

/** We ended the connection (a call was abandoned, keepalive failed, or kill() was called). */
export class ConnectionKilledError extends RpcError {
  override readonly name = 'ConnectionKilledError';
  readonly code = 'LIBVIRT_CONNECTION_KILLED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(`libvirt connection killed: ${message}`, options);
  }
}

/** The peer or the transport ended the connection (socket closed or failed, EOF mid-frame). */
export class ConnectionClosedError extends RpcError {
  override readonly name = 'ConnectionClosedError';
  readonly code = 'LIBVIRT_CONNECTION_CLOSED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(`libvirt connection closed: ${message}`, options);
  }
}

/** A call ran out of its budget. The connection it ran on has been killed. */
export class CallTimeoutError extends RpcError {
  override readonly name = 'CallTimeoutError';
  readonly code = 'LIBVIRT_CALL_TIMEOUT';
  constructor(
    readonly procedure: string,
    readonly timeoutMs: number,
  ) {
    super(`libvirt call ${procedure} exceeded its ${timeoutMs} ms budget`);
  }
}

/** A call's AbortSignal fired. The connection it ran on has been killed. */
export class CallAbortedError extends RpcError {
  override readonly name = 'CallAbortedError';
  readonly code = 'LIBVIRT_CALL_ABORTED';
  constructor(
    readonly procedure: string,
    options?: { cause?: unknown },
  ) {
    super(`libvirt call ${procedure} was aborted`, options);
  }
}

/** Our keepalive PINGs went unanswered: the peer is gone or stalled. */
export class KeepaliveTimeoutError extends RpcError {
  override readonly name = 'KeepaliveTimeoutError';
  readonly code = 'LIBVIRT_KEEPALIVE_TIMEOUT';
  constructor(readonly silentMs: number) {
    super(`libvirt peer silent for ${silentMs} ms despite keepalive pings`);
  }
}

/** The daemon offers only authentication schemes this client does not speak (e.g. SASL). */
export class AuthUnsupportedError extends RpcError {
  override readonly name = 'AuthUnsupportedError';
  readonly code = 'LIBVIRT_AUTH_UNSUPPORTED';
  constructor(readonly offered: string[]) {
    super(`libvirt offers authentication [${offered.join(', ')}]; this client supports none and polkit`);
  }
}

/**
 * The source of an upload failed. The stream was ended cleanly (the daemon keeps what arrived)
 * and the connection stays usable; `cause` is the source's error (the spec's out-of-band rule).
 */
export class UploadSourceError extends RpcError {
  override readonly name = 'UploadSourceError';
  readonly code = 'LIBVIRT_UPLOAD_SOURCE';
  constructor(
    readonly bytesSent: number,
    options: { cause: unknown },
  ) {
    super(`upload source failed after ${bytesSent} bytes; the stream was ended cleanly`, options);
  }
}

/** Data sent into a stream that is already over (finished, aborted, or ended by the daemon). */
export class StreamClosedError extends RpcError {
  override readonly name = 'StreamClosedError';
  readonly code = 'LIBVIRT_STREAM_CLOSED';
}

/**
 * The daemon sent more stream data before the REPLY of the call that opened the stream than the
 * stream may hold. Reading cannot pause then (the reply is behind the data), so the stream is
 * abandoned (STREAM ERROR to the daemon); the connection stays usable.
 */
export class StreamOverflowError extends RpcError {
  override readonly name = 'StreamOverflowError';
  readonly code = 'LIBVIRT_STREAM_OVERFLOW';
  constructor(
    readonly procedure: string,
    readonly limitBytes: number,
  ) {
    super(
      `${procedure}: libvirtd sent more than ${limitBytes} bytes of stream data before its reply; the stream was abandoned (retry; a daemon that does this again is misbehaving)`,
    );
  }
}

/** The connection was closed on purpose with close(); calls made afterwards get this. */
export class ConnectionClosingError extends RpcError {
  override readonly name = 'ConnectionClosingError';
  readonly code = 'LIBVIRT_CONNECTION_CLOSING';
}

/** True for the errors after which the connection is gone and the next call needs a fresh dial. */
export function isConnectionLost(err: unknown): boolean {
  return (
    err instanceof ConnectionKilledError ||
    err instanceof ConnectionClosedError ||
    err instanceof ConnectionClosingError ||
    err instanceof CallTimeoutError ||
    err instanceof CallAbortedError ||
    err instanceof KeepaliveTimeoutError ||
    err instanceof ProtocolError
  );
}
