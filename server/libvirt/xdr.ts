// XDR (RFC 4506) as libvirt's rpcgen uses it: big-endian, 4-byte aligned. A `Shape` pairs an
// encoder with a decoder and carries a description of itself, so the procedure table can be
// declared once and both the client and the table-driven tests read it. The shapes themselves are
// in xdr-shapes.ts; this file is the writer, the reader and the Shape contract.
import { EncodeError, ProtocolError } from './errors';

/** VIR_NET_MESSAGE_STRING_MAX / REMOTE_STRING_MAX: 4 MiB. */
export const XDR_STRING_MAX = 4 * 1024 * 1024;

export type ShapeInfo =
  | { kind: 'void' | 'int' | 'uint' | 'bool' | 'hyper' | 'uhyper' | 'uhyperNumber' | 'double' }
  | { kind: 'string'; max: number }
  | { kind: 'opaque'; fixed: number }
  | { kind: 'bytes'; max: number }
  | { kind: 'optional'; of: Shape<unknown> }
  | { kind: 'array'; of: Shape<unknown>; max: number }
  | { kind: 'fixedArray'; of: Shape<unknown>; length: number }
  | { kind: 'union'; arms: ReadonlyArray<readonly [number, Shape<unknown>]> }
  | { kind: 'struct'; fields: ReadonlyArray<readonly [string, Shape<unknown>]> };

export interface Shape<T> {
  readonly info: ShapeInfo;
  encode(writer: XdrWriter, value: T): void;
  decode(reader: XdrReader): T;
}

const pad = (length: number): number => (4 - (length % 4)) % 4;

export class XdrWriter {
  private buffer: Buffer;
  private offset: number;

  constructor(initialSize = 256) {
    this.buffer = Buffer.allocUnsafe(initialSize);
    this.offset = 0;
  }

  private reserve(bytes: number): void {
    if (this.offset + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.offset + bytes));
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }

  int(value: number): void {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
      throw new EncodeError(`int out of range: ${value}`);
    }
    this.reserve(4);
    this.offset = this.buffer.writeInt32BE(value, this.offset);
  }

  uint(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
      throw new EncodeError(`unsigned int out of range: ${value}`);
    }
    this.reserve(4);
    this.offset = this.buffer.writeUInt32BE(value, this.offset);
  }

  hyper(value: bigint): void {
    if (value < -(2n ** 63n) || value >= 2n ** 63n) throw new EncodeError(`hyper out of range: ${value}`);
    this.reserve(8);
    this.offset = this.buffer.writeBigInt64BE(value, this.offset);
  }

  uhyper(value: bigint): void {
    if (value < 0n || value >= 2n ** 64n) throw new EncodeError(`unsigned hyper out of range: ${value}`);
    this.reserve(8);
    this.offset = this.buffer.writeBigUInt64BE(value, this.offset);
  }

  double(value: number): void {
    this.reserve(8);
    this.offset = this.buffer.writeDoubleBE(value, this.offset);
  }

  /** Raw bytes followed by zero padding to the next 4-byte boundary. */
  padded(bytes: Uint8Array): void {
    const padding = pad(bytes.length);
    this.reserve(bytes.length + padding);
    this.buffer.set(bytes, this.offset);
    this.offset += bytes.length;
    this.buffer.fill(0, this.offset, this.offset + padding);
    this.offset += padding;
  }

  result(): Buffer {
    return this.buffer.subarray(0, this.offset);
  }
}

export class XdrReader {
  private offset = 0;

  constructor(private readonly buffer: Buffer) {}

  private take(bytes: number, what: string): number {
    if (bytes > this.buffer.length - this.offset) {
      throw new ProtocolError(`truncated XDR: ${what} needs ${bytes} bytes, ${this.remaining} left`);
    }
    const at = this.offset;
    this.offset += bytes;
    return at;
  }

  get remaining(): number {
    return this.buffer.length - this.offset;
  }

  int(): number {
    return this.buffer.readInt32BE(this.take(4, 'int'));
  }

  uint(): number {
    return this.buffer.readUInt32BE(this.take(4, 'unsigned int'));
  }

  hyper(): bigint {
    return this.buffer.readBigInt64BE(this.take(8, 'hyper'));
  }

  uhyper(): bigint {
    return this.buffer.readBigUInt64BE(this.take(8, 'unsigned hyper'));
  }

  double(): number {
    return this.buffer.readDoubleBE(this.take(8, 'double'));
  }

  /** `length` raw bytes (a view, not a copy) and their padding. */
  padded(length: number, what: string): Buffer {
    const at = this.take(length + pad(length), what);
    return this.buffer.subarray(at, at + length);
  }

  /** A decoded payload must use every byte: trailing bytes mean the shape does not match. */
  end(): void {
    if (this.remaining !== 0) throw new ProtocolError(`${this.remaining} unexpected trailing bytes in XDR payload`);
  }
}

export function encodeXdr<T>(shape: Shape<T>, value: T): Buffer {
  const writer = new XdrWriter();
  shape.encode(writer, value);
  return writer.result();
}

export function decodeXdr<T>(shape: Shape<T>, bytes: Buffer): T {
  const reader = new XdrReader(bytes);
  const value = shape.decode(reader);
  reader.end();
  return value;
}

export type ShapeValue<S> = S extends Shape<infer T> ? T : never;
