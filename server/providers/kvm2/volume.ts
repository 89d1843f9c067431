// Everything kvm2 puts in a host's pool, by name and by volume XML: the cached base image and its
// digest marker (shared by every Proxy of this provider entry on the host), and per domain an
// overlay backed by the base file and the seed ISO. Names are built here and nowhere else.
// Capacities are always in bytes: libvirt reads `G` as GiB but `GB` as 10^9.
import { createHash } from 'node:crypto';
import type { ImageFormat } from '@/server/providers/config-kvm2';
import { buildXml, type XmlElement } from './xml-codec';

/** The marker holds the base's sha256 as 64 hex characters. */
export const markerSizeBytes = 64;

const gibibyte = 1024 ** 3;

/** `diskSizeGb` means GiB. */
export function diskSizeBytes(diskSizeGb: number): number {
  return diskSizeGb * gibibyte;
}

/** The cache key of an image given by URL: the first 16 hex characters of the URL's sha256. */
export function urlImageKey(url: string): string {
  return createHash('sha256').update(url, 'utf8').digest('hex').slice(0, 16);
}

export interface BaseImageName {
  /** the provider entry's name, so two entries never share a file */
  provider: string;
  /** the images key, or urlImageKey(url) for an image given by URL */
  key: string;
  format: ImageFormat;
}

/** `base-<entry>-<key>.<format>` */
export function baseVolumeName(image: BaseImageName): string {
  return `base-${image.provider}-${image.key}.${image.format}`;
}

/** `<base>.sha256`: written last; its presence marks the base complete. */
export function markerVolumeName(baseVolume: string): string {
  return `${baseVolume}.sha256`;
}

/** `<domain>.qcow2` */
export function overlayVolumeName(domain: string): string {
  return `${domain}.qcow2`;
}

/** `<domain>-seed.iso` */
export function seedVolumeName(domain: string): string {
  return `${domain}-seed.iso`;
}

export interface VolumeSpec {
  name: string;
  capacityBytes: number;
  format: ImageFormat;
  /** for an overlay: the backing file's path (from StorageVolGetPath) and format */
  backing?: { path: string; format: ImageFormat };
}

/** A storage volume definition for StorageVolCreateXML. */
export function buildVolumeXML(spec: VolumeSpec): string {
  if (!Number.isSafeInteger(spec.capacityBytes) || spec.capacityBytes <= 0) {
    throw new RangeError(`volume ${spec.name}: capacity must be a positive whole number of bytes`);
  }
  const volume: XmlElement = {
    name: spec.name,
    capacity: { '@_unit': 'bytes', '#text': String(spec.capacityBytes) },
  };
  // Raw volumes start sparse; the upload writes them.
  if (spec.format === 'raw') volume.allocation = { '@_unit': 'bytes', '#text': '0' };
  volume.target = { format: { '@_type': spec.format } };
  if (spec.backing) volume.backingStore = { path: spec.backing.path, format: { '@_type': spec.backing.format } };
  return buildXml({ volume });
}

/** The per-domain disk: qcow2, `diskSizeGb` GiB, backed by the base image's file. */
export function overlayVolumeXML(options: { domain: string; diskSizeGb: number; basePath: string; baseFormat: ImageFormat }): string {
  return buildVolumeXML({
    name: overlayVolumeName(options.domain),
    capacityBytes: diskSizeBytes(options.diskSizeGb),
    format: 'qcow2',
    backing: { path: options.basePath, format: options.baseFormat },
  });
}

/** The seed ISO volume, sized to the ISO it will receive. */
export function seedVolumeXML(options: { domain: string; sizeBytes: number }): string {
  return buildVolumeXML({ name: seedVolumeName(options.domain), capacityBytes: options.sizeBytes, format: 'raw' });
}

/**
 * The base image volume: declared raw and sparse with exactly the download's Content-Length, so
 * the upload fills it verbatim and leaves no tail of a file libvirt pre-formatted. After the
 * upload, StoragePoolRefresh makes libvirt probe the file and report its real format and size.
 */
export function baseVolumeXML(options: { name: string; sizeBytes: number }): string {
  return buildVolumeXML({ name: options.name, capacityBytes: options.sizeBytes, format: 'raw' });
}

/** The 64-byte raw marker next to a base image. */
export function markerVolumeXML(baseVolume: string): string {
  return buildVolumeXML({ name: markerVolumeName(baseVolume), capacityBytes: markerSizeBytes, format: 'raw' });
}
