// Turning an answer packet into a value or a typed error. Shared by calls and streams.
import { LibvirtError, ProtocolError } from './errors';
import type { Packet } from './framing';
import { MessageStatus, MessageType, remoteError } from './net-protocol';
import { decodeXdr, type Shape } from './xdr';

/** The LibvirtError carried by a packet with status ERROR (a remote_error payload). */
export function libvirtErrorOf(procedure: string, packet: Packet): LibvirtError {
  const fields = decodeXdr(remoteError, packet.payload);
  return new LibvirtError(procedure, fields);
}

/**
 * The value of a REPLY: decoded with `ret` when OK; a thrown LibvirtError when ERROR; a thrown
 * ProtocolError for anything else (which the caller treats as fatal to the connection).
 */
export function decodeReply<R>(procedure: string, ret: Shape<R>, packet: Packet): R {
  const { type, status } = packet.header;
  if (type !== MessageType.Reply) {
    throw new ProtocolError(`${procedure}: expected a REPLY, got message type ${type}`);
  }
  if (status === MessageStatus.Error) throw libvirtErrorOf(procedure, packet);
  if (status !== MessageStatus.Ok) throw new ProtocolError(`${procedure}: REPLY with status ${status}`);
  return decodeXdr(ret, packet.payload);
}
