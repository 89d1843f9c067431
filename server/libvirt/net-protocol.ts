// The packet layer every libvirt program shares: src/rpc/virnetprotocol.x (header, limits,
// virNetMessageError) and src/rpc/virkeepaliveprotocol.x (the keepalive program).
import { XDR_STRING_MAX, type ShapeValue } from './xdr';
import { xdrInt, xdrOpaque, xdrOptional, xdrString, xdrStruct } from './xdr-shapes';

/** VIR_NET_MESSAGE_MAX: the largest header + payload, not counting the 4-byte length word. */
export const MESSAGE_MAX = 16 * 1024 * 1024;
/** VIR_NET_MESSAGE_HEADER_MAX: 6 u32s. */
export const HEADER_SIZE = 24;
/** VIR_NET_MESSAGE_LEN_MAX: the length word, which counts itself. */
export const LENGTH_SIZE = 4;
/** VIR_NET_MESSAGE_PAYLOAD_MAX. */
export const PAYLOAD_MAX = MESSAGE_MAX - HEADER_SIZE;
/** VIR_NET_MESSAGE_LEGACY_PAYLOAD_MAX: what libvirtd puts in one STREAM packet. */
export const LEGACY_PAYLOAD_MAX = 262144;
export const STRING_MAX = XDR_STRING_MAX;

/** enum virNetMessageType */
export const MessageType = {
  Call: 0,
  Reply: 1,
  Message: 2,
  Stream: 3,
  CallWithFds: 4,
  ReplyWithFds: 5,
  StreamHole: 6,
} as const;
export type MessageTypeValue = (typeof MessageType)[keyof typeof MessageType];

/** enum virNetMessageStatus */
export const MessageStatus = { Ok: 0, Error: 1, Continue: 2 } as const;
export type MessageStatusValue = (typeof MessageStatus)[keyof typeof MessageStatus];

/** struct virNetMessageHeader */
export interface MessageHeader {
  program: number;
  version: number;
  procedure: number;
  type: MessageTypeValue;
  serial: number;
  status: MessageStatusValue;
}

/** virkeepaliveprotocol.x: KEEPALIVE_PROGRAM, KEEPALIVE_PROTOCOL_VERSION, keepalive_procedure. */
export const KEEPALIVE_PROGRAM = 0x6b656570;
export const KEEPALIVE_VERSION = 1;
export const KeepaliveProcedure = { Ping: 1, Pong: 2 } as const;

const nonnullString = xdrString(STRING_MAX);
const optionalString = xdrOptional(nonnullString);

// struct virNetMessageError (wire-identical to remote_error in remote_protocol.x)
export const remoteError = xdrStruct({
  code: xdrInt,
  domain: xdrInt,
  message: optionalString,
  level: xdrInt,
  // virNetMessageDomain dom: struct virNetMessageNonnullDomain * (unused by libvirt)
  dom: xdrOptional(xdrStruct({ name: nonnullString, uuid: xdrOpaque(16), id: xdrInt })),
  str1: optionalString,
  str2: optionalString,
  str3: optionalString,
  int1: xdrInt,
  int2: xdrInt,
  // virNetMessageNetwork net: struct virNetMessageNonnullNetwork * (unused by libvirt)
  net: xdrOptional(xdrStruct({ name: nonnullString, uuid: xdrOpaque(16) })),
});
export type RemoteError = ShapeValue<typeof remoteError>;
