// Directory records (ECMA-119 9.1), directory extents and path tables (9.4) for a volume whose
// only directory is the root.
import { recordingDate, sectorSize, uint16Both, uint16BE, uint16LE, uint32BE, uint32Both, uint32LE, writeParts } from './encoding';

export interface DirectoryRecordFields {
  /** first sector of the file's (or directory's) data */
  extent: number;
  /** data length in bytes */
  size: number;
  isDirectory: boolean;
  /** file identifier bytes; 0x00 is ".", 0x01 is ".." */
  identifier: Uint8Array;
  recorded: Date;
  /** SUSP / Rock Ridge entries */
  systemUse?: Uint8Array;
}

export const selfIdentifier = Uint8Array.of(0);
export const parentIdentifier = Uint8Array.of(1);

const maxRecordLength = 255;

/** 9.1: one directory record, padded to an even length. */
export function directoryRecord(fields: DirectoryRecordFields): Uint8Array {
  const identifierPad = fields.identifier.length % 2 === 0 ? 1 : 0;
  const systemUse = fields.systemUse ?? new Uint8Array(0);
  const unpadded = 33 + fields.identifier.length + identifierPad + systemUse.length;
  const length = unpadded + (unpadded % 2);
  if (length > maxRecordLength) throw new RangeError(`directory record of ${length} bytes exceeds ${maxRecordLength}`);
  const record = new Uint8Array(length);
  record[0] = length;
  record[1] = 0; // extended attribute record length
  writeParts(record, 2, [uint32Both(fields.extent), uint32Both(fields.size), recordingDate(fields.recorded)]);
  record[25] = fields.isDirectory ? 0x02 : 0x00;
  record[26] = 0; // file unit size (not interleaved)
  record[27] = 0; // interleave gap
  record.set(uint16Both(1), 28); // volume sequence number
  record[32] = fields.identifier.length;
  record.set(fields.identifier, 33);
  record.set(systemUse, 33 + fields.identifier.length + identifierPad);
  return record;
}

/**
 * 6.8.1.1: records packed into sectors; a record never straddles a sector boundary, the rest of
 * a sector is zero. The result is a whole number of sectors.
 */
export function directoryExtent(records: readonly Uint8Array[]): Uint8Array {
  const sectors: Uint8Array[] = [];
  let current = new Uint8Array(sectorSize);
  let used = 0;
  for (const record of records) {
    if (used + record.length > sectorSize) {
      sectors.push(current);
      current = new Uint8Array(sectorSize);
      used = 0;
    }
    current.set(record, used);
    used += record.length;
  }
  sectors.push(current);
  return Buffer.concat(sectors);
}

/** 9.4: the path table of a volume with only a root directory, in both byte orders. */
export function rootPathTables(rootExtent: number): { littleEndian: Uint8Array; bigEndian: Uint8Array } {
  const build = (extent: Uint8Array, parent: Uint8Array) => Buffer.concat([Uint8Array.of(1, 0), extent, parent, Uint8Array.of(0, 0)]);
  return {
    littleEndian: build(uint32LE(rootExtent), uint16LE(1)),
    bigEndian: build(uint32BE(rootExtent), uint16BE(1)),
  };
}
