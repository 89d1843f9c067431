// Volume descriptors (ECMA-119 8.4 primary, 8.5 supplementary for Joliet, 8.3 terminator).
import { asciiField, descriptorDate, sectorSize, ucs2Field, uint16Both, uint32BE, uint32Both, uint32LE } from './encoding';

export interface VolumeDescriptorFields {
  /** 'primary' writes ASCII fields; 'joliet' writes UCS-2 fields and the UCS-2 level 3 escape */
  kind: 'primary' | 'joliet';
  volumeId: string;
  volumeSectors: number;
  pathTableSize: number;
  pathTableLittleEndianSector: number;
  pathTableBigEndianSector: number;
  /** the 34-byte directory record of the root */
  rootRecord: Uint8Array;
  created: Date;
  applicationId: string;
}

const standardId = 'CD001';
// Joliet UCS-2 level 3: "%/E"
const jolietEscape = Uint8Array.of(0x25, 0x2f, 0x45);

export function volumeDescriptor(fields: VolumeDescriptorFields): Uint8Array {
  const sector = Buffer.alloc(sectorSize, 0);
  const joliet = fields.kind === 'joliet';
  const text = (value: string, length: number) => (joliet ? ucs2Field(value, length) : asciiField(value, length));
  sector[0] = joliet ? 2 : 1;
  sector.write(standardId, 1, 'ascii');
  sector[6] = 1;
  sector.set(text('', 32), 8); // system identifier
  sector.set(text(fields.volumeId, 32), 40);
  sector.set(uint32Both(fields.volumeSectors), 80);
  if (joliet) sector.set(jolietEscape, 88);
  sector.set(uint16Both(1), 120); // volume set size
  sector.set(uint16Both(1), 124); // volume sequence number
  sector.set(uint16Both(sectorSize), 128);
  sector.set(uint32Both(fields.pathTableSize), 132);
  sector.set(uint32LE(fields.pathTableLittleEndianSector), 140);
  sector.set(uint32BE(fields.pathTableBigEndianSector), 148);
  sector.set(fields.rootRecord, 156);
  sector.set(text('', 128), 190); // volume set identifier
  sector.set(text('', 128), 318); // publisher
  sector.set(text('', 128), 446); // data preparer
  sector.set(text(fields.applicationId, 128), 574);
  sector.set(text('', 37), 702); // copyright file
  sector.set(text('', 37), 739); // abstract file
  sector.set(text('', 37), 776); // bibliographic file
  sector.set(descriptorDate(fields.created), 813);
  sector.set(descriptorDate(fields.created), 830);
  sector.set(descriptorDate(undefined), 847); // expiration
  sector.set(descriptorDate(undefined), 864); // effective
  sector[881] = 1; // file structure version
  return sector;
}

export function terminatorDescriptor(): Uint8Array {
  const sector = Buffer.alloc(sectorSize, 0);
  sector[0] = 255;
  sector.write(standardId, 1, 'ascii');
  sector[6] = 1;
  return sector;
}
