// Packet framing (virnetprotocol.x "RPC wire format"): a 4-byte big-endian length that counts
// itself, the 24-byte header, the XDR payload. The decoder accepts bytes in chunks of any size
// and enforces VIR_NET_MESSAGE_MAX in both directions.
import { MessageTooLargeError, ProtocolError } from './errors';
import {
  HEADER_SIZE,
  LENGTH_SIZE,
  MESSAGE_MAX,
  MessageStatus,
  MessageType,
  type MessageHeader,
  type MessageStatusValue,
  type MessageTypeValue,
} from './net-protocol';

export interface Packet {
  header: MessageHeader;
  payload: Buffer;
}

const EMPTY = Buffer.alloc(0);
const validTypes = new Set<number>(Object.values(MessageType));
const validStatuses = new Set<number>(Object.values(MessageStatus));

/** The length word and header for a payload of `payloadLength` bytes sent separately. */
export function encodeHeader(header: MessageHeader, payloadLength: number): Buffer {
  const messageSize = HEADER_SIZE + payloadLength;
  if (messageSize > MESSAGE_MAX) throw new MessageTooLargeError('outgoing', messageSize, MESSAGE_MAX);
  const out = Buffer.allocUnsafe(LENGTH_SIZE + HEADER_SIZE);
  out.writeUInt32BE(LENGTH_SIZE + messageSize, 0);
  out.writeUInt32BE(header.program, 4);
  out.writeUInt32BE(header.version, 8);
  out.writeInt32BE(header.procedure, 12);
  out.writeInt32BE(header.type, 16);
  out.writeUInt32BE(header.serial, 20);
  out.writeInt32BE(header.status, 24);
  return out;
}

/** One whole frame in one buffer. */
export function encodeFrame(header: MessageHeader, payload: Uint8Array = EMPTY): Buffer {
  return Buffer.concat([encodeHeader(header, payload.length), payload]);
}

function decodeHeader(frame: Buffer): MessageHeader {
  const type = frame.readInt32BE(16);
  const status = frame.readInt32BE(24);
  if (!validTypes.has(type)) throw new ProtocolError(`unknown message type ${type}`);
  if (!validStatuses.has(status)) throw new ProtocolError(`unknown message status ${status}`);
  return {
    program: frame.readUInt32BE(4),
    version: frame.readUInt32BE(8),
    procedure: frame.readInt32BE(12),
    type: type as MessageTypeValue,
    serial: frame.readUInt32BE(20),
    status: status as MessageStatusValue,
  };
}

/** Splits a byte stream into packets. `push` throws ProtocolError or MessageTooLargeError. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private expected = -1;

  /** True while part of a frame has arrived and the rest has not. */
  get midFrame(): boolean {
    return this.buffered > 0;
  }

  push(chunk: Buffer): Packet[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const packets: Packet[] = [];
    for (;;) {
      if (this.expected < 0) {
        if (this.buffered < LENGTH_SIZE) break;
        this.expected = this.readLength();
      }
      if (this.buffered < this.expected) break;
      const frame = this.take(this.expected);
      this.expected = -1;
      packets.push({ header: decodeHeader(frame), payload: frame.subarray(LENGTH_SIZE + HEADER_SIZE) });
    }
    return packets;
  }

  private readLength(): number {
    const length = this.peek(LENGTH_SIZE).readUInt32BE(0);
    if (length < LENGTH_SIZE + HEADER_SIZE) {
      throw new ProtocolError(`frame length ${length} is shorter than the ${LENGTH_SIZE + HEADER_SIZE}-byte header`);
    }
    if (length - LENGTH_SIZE > MESSAGE_MAX) throw new MessageTooLargeError('incoming', length - LENGTH_SIZE, MESSAGE_MAX);
    return length;
  }

  private peek(bytes: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= bytes) return first;
    return Buffer.concat(this.chunks).subarray(0, bytes);
  }

  private take(bytes: number): Buffer {
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= bytes) {
      out = first.subarray(0, bytes);
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
    } else {
      out = Buffer.allocUnsafe(bytes);
      let filled = 0;
      let used = 0; // whole chunks consumed, dropped in one splice rather than shift() by shift()
      while (filled < bytes) {
        const chunk = this.chunks[used]!;
        const n = Math.min(chunk.length, bytes - filled);
        chunk.copy(out, filled, 0, n);
        filled += n;
        if (n === chunk.length) used++;
        else this.chunks[used] = chunk.subarray(n);
      }
      this.chunks.splice(0, used);
    }
    this.buffered -= bytes;
    return out;
  }
}
