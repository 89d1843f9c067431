// System Use Sharing Protocol (SUSP 1.10) and Rock Ridge (RRIP 1.09, "RRIP_1991A") entries.
// Rock Ridge is what lets Linux's isofs, and so cloud-init's NoCloud reader, see `user-data`
// rather than ISO level-1's `USER_DAT.`. Each entry: two signature bytes, length, version, body.
import { uint32Both, recordingDate } from './encoding';

function entry(signature: string, body: readonly number[] | Uint8Array): Uint8Array {
  const bytes = new Uint8Array(4 + body.length);
  bytes[0] = signature.charCodeAt(0);
  bytes[1] = signature.charCodeAt(1);
  bytes[2] = bytes.length;
  bytes[3] = 1;
  bytes.set(body, 4);
  return bytes;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

/** SUSP 5.3 SP: first entry of the root's "." record; tells readers SUSP is in use. */
export function suspIndicator(): Uint8Array {
  return entry('SP', [0xbe, 0xef, 0]);
}

// RRIP 1.09 RR flags: which Rock Ridge entries a record carries.
const rrFlag = { PX: 0x01, NM: 0x08, TF: 0x80 } as const;

/** RRIP 1.09 RR: the Rock Ridge entries present in this record. */
export function rockRidgeFlags(present: readonly (keyof typeof rrFlag)[]): Uint8Array {
  return entry('RR', [present.reduce((flags, name) => flags | rrFlag[name], 0)]);
}

export interface PosixAttributes {
  mode: number;
  links: number;
  uid: number;
  gid: number;
}

/** RRIP 4.1.1 PX: POSIX mode, link count, owner and group (36-byte 1991A form). */
export function posixAttributes(attributes: PosixAttributes): Uint8Array {
  return entry('PX', concat([uint32Both(attributes.mode), uint32Both(attributes.links), uint32Both(attributes.uid), uint32Both(attributes.gid)]));
}

const tfFlag = { modify: 0x02, access: 0x04, attributes: 0x08 } as const;

/** RRIP 4.1.6 TF: modification, access and attribute-change times, all `date`. */
export function timestamps(date: Date): Uint8Array {
  const stamp = recordingDate(date);
  return entry('TF', concat([Uint8Array.of(tfFlag.modify | tfFlag.access | tfFlag.attributes), stamp, stamp, stamp]));
}

/** RRIP 4.1.4 NM: the POSIX file name. */
export function alternateName(name: string): Uint8Array {
  return entry('NM', concat([Uint8Array.of(0), Buffer.from(name, 'utf8')]));
}

export interface ContinuationArea {
  sector: number;
  offset: number;
  length: number;
}

/** SUSP 5.1 CE: where the rest of this record's System Use entries continue. */
export function continuation(area: ContinuationArea): Uint8Array {
  return entry('CE', concat([uint32Both(area.sector), uint32Both(area.offset), uint32Both(area.length)]));
}

const rripIdentifier = 'RRIP_1991A';
const rripDescriptor = 'THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS';
const rripSource = 'PLEASE CONTACT DISC PUBLISHER FOR SPECIFICATION SOURCE.  SEE PUBLISHER IDENTIFIER IN PRIMARY VOLUME DESCRIPTOR FOR CONTACT INFORMATION.';

/**
 * SUSP 5.5 ER: declares Rock Ridge. Linux prefers Rock Ridge over Joliet names only once it has
 * seen this entry in the root, so it must be present; it is too long for the root record itself
 * and lives in a continuation area.
 */
export function extensionReference(): Uint8Array {
  const identifier = Buffer.from(rripIdentifier, 'ascii');
  const descriptor = Buffer.from(rripDescriptor, 'ascii');
  const source = Buffer.from(rripSource, 'ascii');
  return entry('ER', concat([Uint8Array.of(identifier.length, descriptor.length, source.length, 1), identifier, descriptor, source]));
}

export const posixMode = {
  directory: 0o040555,
  file: 0o100444,
} as const;
