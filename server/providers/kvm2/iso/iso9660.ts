// An ISO 9660 image with one flat root directory, written in memory: a primary volume with
// level-1 names plus Rock Ridge entries carrying the real names, and a Joliet supplementary
// volume carrying them again in UCS-2. Linux's isofs reads the Rock Ridge names; readers without
// Rock Ridge fall back to Joliet. Deterministic for a given `created` time.
import { sectorSize, sectorsFor, ucs2BE, writeParts } from './encoding';
import { volumeDescriptor, terminatorDescriptor } from './descriptors';
import { directoryExtent, directoryRecord, parentIdentifier, rootPathTables, selfIdentifier } from './directory';
import { alternateName, continuation, extensionReference, posixAttributes, posixMode, rockRidgeFlags, suspIndicator, timestamps } from './rock-ridge';

export interface IsoFile {
  /** the name readers see: letters, digits, dots, dashes and underscores, at most 64 characters */
  name: string;
  data: Uint8Array;
}

export interface IsoOptions {
  volumeId: string;
  files: readonly IsoFile[];
  /** creation time written into descriptors and records; now when omitted */
  created?: Date;
  applicationId?: string;
}

// Zero sectors after the last file, as mkisofs writes by default: readers that read ahead in
// 64 KiB chunks (busybox's blkid, some CD drivers) fail on a volume smaller than their read.
const trailingPadSectors = 150;

const portableName = /^[A-Za-z0-9._-]{1,64}$/;

// Fixed sectors before the directories: 16 system-area sectors, then the descriptors.
const layout = {
  primaryDescriptor: 16,
  jolietDescriptor: 17,
  terminator: 18,
  primaryPathTableL: 19,
  primaryPathTableM: 20,
  jolietPathTableL: 21,
  jolietPathTableM: 22,
  rockRidgeContinuation: 23,
  firstDirectory: 24,
} as const;

/** ISO level-1 identifier (8.3, upper-case d-characters, version 1), made unique against `taken`. */
export function level1Identifier(name: string, taken: ReadonlySet<string>): string {
  const dChars = (text: string) => text.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  const dot = name.lastIndexOf('.');
  const stem = dChars(dot > 0 ? name.slice(0, dot) : name).slice(0, 8);
  const extension = dChars(dot > 0 ? name.slice(dot + 1) : '').slice(0, 3);
  for (let counter = 0; ; counter += 1) {
    const suffix = counter === 0 ? '' : `~${counter}`;
    const identifier = `${stem.slice(0, 8 - suffix.length)}${suffix}.${extension};1`;
    if (!taken.has(identifier)) return identifier;
  }
}

interface PlacedFile extends IsoFile {
  level1: string;
  extent: number;
}

function checkFiles(files: readonly IsoFile[]): void {
  const seen = new Set<string>();
  for (const file of files) {
    if (!portableName.test(file.name)) throw new RangeError(`ISO file name ${JSON.stringify(file.name)} is not portable`);
    if (seen.has(file.name)) throw new RangeError(`ISO file name ${JSON.stringify(file.name)} appears twice`);
    seen.add(file.name);
  }
}

function compareBytes(left: Uint8Array, right: Uint8Array): number {
  return Buffer.compare(left, right);
}

function primaryRecords(files: readonly PlacedFile[], root: { extent: number; size: number }, created: Date): Uint8Array[] {
  const directoryAttributes = posixAttributes({ mode: posixMode.directory, links: 2, uid: 0, gid: 0 });
  const fileAttributes = posixAttributes({ mode: posixMode.file, links: 1, uid: 0, gid: 0 });
  const extensions = extensionReference();
  const self = directoryRecord({
    ...root,
    isDirectory: true,
    identifier: selfIdentifier,
    recorded: created,
    systemUse: Buffer.concat([
      suspIndicator(),
      rockRidgeFlags(['PX', 'TF']),
      directoryAttributes,
      timestamps(created),
      continuation({ sector: layout.rockRidgeContinuation, offset: 0, length: extensions.length }),
    ]),
  });
  const parent = directoryRecord({
    ...root,
    isDirectory: true,
    identifier: parentIdentifier,
    recorded: created,
    systemUse: Buffer.concat([rockRidgeFlags(['PX', 'TF']), directoryAttributes, timestamps(created)]),
  });
  const sorted = [...files].sort((a, b) => compareBytes(Buffer.from(a.level1), Buffer.from(b.level1)));
  const records = sorted.map((file) =>
    directoryRecord({
      extent: file.extent,
      size: file.data.length,
      isDirectory: false,
      identifier: Buffer.from(file.level1, 'ascii'),
      recorded: created,
      systemUse: Buffer.concat([rockRidgeFlags(['PX', 'TF', 'NM']), fileAttributes, timestamps(created), alternateName(file.name)]),
    }),
  );
  return [self, parent, ...records];
}

function jolietRecords(files: readonly PlacedFile[], root: { extent: number; size: number }, created: Date): Uint8Array[] {
  const dot = directoryRecord({ ...root, isDirectory: true, identifier: selfIdentifier, recorded: created });
  const dotDot = directoryRecord({ ...root, isDirectory: true, identifier: parentIdentifier, recorded: created });
  const sorted = [...files].sort((a, b) => compareBytes(ucs2BE(a.name), ucs2BE(b.name)));
  const records = sorted.map((file) =>
    directoryRecord({
      extent: file.extent,
      size: file.data.length,
      isDirectory: false,
      identifier: ucs2BE(file.name),
      recorded: created,
    }),
  );
  return [dot, dotDot, ...records];
}

/** Builds the whole image. Empty files take no sector (extent 0, length 0). */
export function writeIso9660(options: IsoOptions): Uint8Array {
  checkFiles(options.files);
  const created = options.created ?? new Date();
  const taken = new Set<string>();
  const named = options.files.map((file) => {
    const level1 = level1Identifier(file.name, taken);
    taken.add(level1);
    return { ...file, level1, extent: 0 };
  });

  // Directory sizes depend on names only, so measure with placeholder extents first.
  const measure = (records: Uint8Array[]) => directoryExtent(records).length;
  const primarySize = measure(primaryRecords(named, { extent: 0, size: 0 }, created));
  const jolietSize = measure(jolietRecords(named, { extent: 0, size: 0 }, created));
  const primaryRoot = { extent: layout.firstDirectory, size: primarySize };
  const jolietRoot = { extent: primaryRoot.extent + sectorsFor(primarySize), size: jolietSize };

  let nextSector = jolietRoot.extent + sectorsFor(jolietSize);
  const placed: PlacedFile[] = named.map((file) => {
    if (file.data.length === 0) return file;
    const extent = nextSector;
    nextSector += sectorsFor(file.data.length);
    return { ...file, extent };
  });
  const totalSectors = nextSector + trailingPadSectors;

  const image = new Uint8Array(totalSectors * sectorSize);
  const at = (sector: number) => sector * sectorSize;
  const primaryTables = rootPathTables(primaryRoot.extent);
  const jolietTables = rootPathTables(jolietRoot.extent);
  const descriptorCommon = {
    volumeId: options.volumeId,
    volumeSectors: totalSectors,
    pathTableSize: primaryTables.littleEndian.length,
    created,
    applicationId: options.applicationId ?? '',
  };
  const rootRecord = (root: { extent: number; size: number }) => directoryRecord({ ...root, isDirectory: true, identifier: selfIdentifier, recorded: created });

  image.set(
    volumeDescriptor({
      ...descriptorCommon,
      kind: 'primary',
      pathTableLittleEndianSector: layout.primaryPathTableL,
      pathTableBigEndianSector: layout.primaryPathTableM,
      rootRecord: rootRecord(primaryRoot),
    }),
    at(layout.primaryDescriptor),
  );
  image.set(
    volumeDescriptor({
      ...descriptorCommon,
      kind: 'joliet',
      pathTableLittleEndianSector: layout.jolietPathTableL,
      pathTableBigEndianSector: layout.jolietPathTableM,
      rootRecord: rootRecord(jolietRoot),
    }),
    at(layout.jolietDescriptor),
  );
  image.set(terminatorDescriptor(), at(layout.terminator));
  image.set(primaryTables.littleEndian, at(layout.primaryPathTableL));
  image.set(primaryTables.bigEndian, at(layout.primaryPathTableM));
  image.set(jolietTables.littleEndian, at(layout.jolietPathTableL));
  image.set(jolietTables.bigEndian, at(layout.jolietPathTableM));
  image.set(extensionReference(), at(layout.rockRidgeContinuation));
  writeParts(image, at(primaryRoot.extent), [directoryExtent(primaryRecords(placed, primaryRoot, created))]);
  writeParts(image, at(jolietRoot.extent), [directoryExtent(jolietRecords(placed, jolietRoot, created))]);
  for (const file of placed) image.set(file.data, at(file.extent));
  return image;
}
