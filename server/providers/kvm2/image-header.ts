// What a base image's own header says about files outside it. A qcow2 header can name a backing
// file and an external data file by absolute path; QEMU opens them and libvirt re-owns them (DAC
// relabel) at domain start, so a hostile image, or a plain-HTTP hop to it, could make a guest read
// any host file or device. A base that names either is refused before it is marked cached, and
// again before an overlay is made on it.
//
// Layout (big-endian), from QEMU's docs/interop/qcow2.txt:
//   0 magic "QFI\xfb" | 4 version | 8 backing_file_offset u64 | 16 backing_file_size u32
//   v3: 72 incompatible_features u64 (bit 2: external data file) | 100 header_length u32
//   header extensions from header_length (v2: 72): type u32, length u32, data padded to 8;
//   type 0 ends them, 0x44415441 ("DATA") holds the external data file's name.

/** Bytes of a base read for the check: header and extensions live in the first cluster (64 KiB by default). */
export const headerBytes = 64 * 1024;

const qcow2Magic = 0x514649fb;
const incompatibleDataFile = 1n << 2n;
const extensionEnd = 0;
const extensionDataFile = 0x44415441;

export interface ExternalFile {
  kind: 'backing file' | 'external data file';
  /** the path the header names, when it lies within the bytes read */
  name?: string;
}

/**
 * The files outside the image that its header makes QEMU open. Anything that is not qcow2 names
 * none (the domain declares every format explicitly, so QEMU never probes one). A qcow2 header too
 * short to read counts as naming an unknown file: it cannot be shown safe.
 */
export function externalFiles(header: Uint8Array): ExternalFile[] {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (header.byteLength < 4 || view.getUint32(0) !== qcow2Magic) return [];
  if (header.byteLength < 72) return [{ kind: 'backing file' }];
  const found: ExternalFile[] = [];
  const backingOffset = view.getBigUint64(8);
  const backingSize = view.getUint32(16);
  if (backingOffset !== 0n || backingSize !== 0) found.push({ kind: 'backing file', name: textAt(header, backingOffset, backingSize) });
  const version = view.getUint32(4);
  let extensionsAt = 72;
  if (version >= 3) {
    if (header.byteLength < 104) return [...found, { kind: 'external data file' }];
    const dataFileFlag = (view.getBigUint64(72) & incompatibleDataFile) !== 0n;
    extensionsAt = view.getUint32(100);
    const named = dataFileName(header, extensionsAt);
    if (dataFileFlag || named !== undefined) found.push({ kind: 'external data file', name: named || undefined });
  }
  return found;
}

/** The data-file extension's name ('' when present but unreadable), or undefined when there is none. */
function dataFileName(header: Uint8Array, start: number): string | undefined {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  for (let at = start; at + 8 <= header.byteLength;) {
    const type = view.getUint32(at);
    const length = view.getUint32(at + 4);
    if (type === extensionEnd) return undefined;
    if (type === extensionDataFile) return textAt(header, BigInt(at + 8), length) ?? '';
    at += 8 + Math.ceil(length / 8) * 8;
  }
  return undefined;
}

function textAt(header: Uint8Array, offset: bigint, length: number): string | undefined {
  const end = offset + BigInt(length);
  if (length === 0 || end > BigInt(header.byteLength)) return undefined;
  return Buffer.from(header.subarray(Number(offset), Number(end))).toString('utf8');
}

/** "backing file /etc/shadow and external data file (name not readable)" */
export function describeExternalFiles(files: ExternalFile[]): string {
  return files.map((file) => `${file.kind} ${file.name !== undefined ? JSON.stringify(file.name) : '(name not readable)'}`).join(' and ');
}

/** The first `limit` bytes that flow through `source`, kept while it is consumed. */
export function captureHead(source: AsyncIterable<Uint8Array>, limit = headerBytes): { body: AsyncIterable<Uint8Array>; head(): Buffer } {
  const parts: Uint8Array[] = [];
  let kept = 0;
  async function* body(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      if (kept < limit) {
        const part = chunk.subarray(0, limit - kept);
        parts.push(Uint8Array.from(part));
        kept += part.length;
      }
      yield chunk;
    }
  }
  return { body: body(), head: () => Buffer.concat(parts) };
}
