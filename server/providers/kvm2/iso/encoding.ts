// Field encodings of ECMA-119 (ISO 9660): both-endian integers, the two date forms, padded
// character fields. ISO 9660 stores most integers twice (little- then big-endian) so readers of
// either byte order can take theirs.

export const sectorSize = 2048;

/** `size` bytes written by `write`. */
function bytesOf(size: number, write: (bytes: Buffer) => void): Uint8Array {
  const bytes = Buffer.alloc(size);
  write(bytes);
  return bytes;
}

export const uint16LE = (value: number): Uint8Array => bytesOf(2, (bytes) => bytes.writeUInt16LE(value, 0));
export const uint16BE = (value: number): Uint8Array => bytesOf(2, (bytes) => bytes.writeUInt16BE(value, 0));
export const uint32LE = (value: number): Uint8Array => bytesOf(4, (bytes) => bytes.writeUInt32LE(value, 0));
export const uint32BE = (value: number): Uint8Array => bytesOf(4, (bytes) => bytes.writeUInt32BE(value, 0));

/** 7.2.3: 16-bit both-endian (4 bytes). */
export const uint16Both = (value: number): Uint8Array => Buffer.concat([uint16LE(value), uint16BE(value)]);

/** 7.3.3: 32-bit both-endian (8 bytes). */
export const uint32Both = (value: number): Uint8Array => Buffer.concat([uint32LE(value), uint32BE(value)]);

/** 9.1.5: directory record date, 7 bytes, always written in UTC (offset 0). */
export function recordingDate(date: Date): Uint8Array {
  return Uint8Array.of(
    date.getUTCFullYear() - 1900,
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
    0,
  );
}

const two = (value: number) => String(value).padStart(2, '0');

/** 8.4.26.1: volume descriptor date, 16 ASCII digits plus a zone byte; `undefined` is "not specified". */
export function descriptorDate(date: Date | undefined): Uint8Array {
  const bytes = Buffer.alloc(17, 0);
  const digits = date
    ? `${String(date.getUTCFullYear()).padStart(4, '0')}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}` +
      `${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}00`
    : '0'.repeat(16);
  bytes.write(digits, 0, 'ascii');
  return bytes;
}

/** An ASCII field padded with spaces to `length` bytes. */
export function asciiField(text: string, length: number): Uint8Array {
  const bytes = Buffer.alloc(length, 0x20);
  bytes.write(text.slice(0, length), 0, 'ascii');
  return bytes;
}

/** UCS-2 big-endian, as Joliet stores names. */
export function ucs2BE(text: string): Uint8Array {
  const bytes = Buffer.alloc(text.length * 2);
  for (let index = 0; index < text.length; index += 1) bytes.writeUInt16BE(text.charCodeAt(index), index * 2);
  return bytes;
}

/** A Joliet descriptor text field: UCS-2 big-endian, padded with UCS-2 spaces to `length` bytes. */
export function ucs2Field(text: string, length: number): Uint8Array {
  const bytes = Buffer.alloc(length);
  for (let offset = 0; offset + 1 < length; offset += 2) bytes.writeUInt16BE(0x20, offset);
  const encoded = ucs2BE(text.slice(0, Math.floor(length / 2)));
  bytes.set(encoded, 0);
  return bytes;
}

export function sectorsFor(byteLength: number): number {
  return Math.ceil(byteLength / sectorSize);
}

/** Writes `parts` one after another into `target` from `offset`; returns the offset after them. */
export function writeParts(target: Uint8Array, offset: number, parts: readonly Uint8Array[]): number {
  let position = offset;
  for (const part of parts) {
    target.set(part, position);
    position += part.length;
  }
  return position;
}
