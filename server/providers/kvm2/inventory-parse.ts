// What the host inventory reads out of names and XML: which pool volumes are this entry's cached
// base images and markers (by the names volume.ts builds), and which files a domain's disks
// depend on (each disk's source and the backing chain libvirt reports for it), along with
// kvm2's mark and the first-generation provider's.
import { imageFormats, type ImageFormat } from '@/server/providers/config-kvm2';
import { CorruptMetadataError, findInstanceMetadata, hasGen1Mark, type InstanceMetadata } from './metadata';
import { markerVolumeName } from './volume';
import { attributeOf, childElement, childElements, parseXml, textOf, type XmlElement } from './xml-codec';

export interface CachedImageName {
  /** `base-<entry>-<key>.<format>` */
  base: string;
  /** `<base>.sha256` */
  marker: string;
  key: string;
  format: ImageFormat;
}

const markerSuffix = markerVolumeName('');

/** The base image a volume name belongs to (the base itself or its marker), for provider entry `entry`. */
export function parseCachedImageName(entry: string, volume: string): CachedImageName | undefined {
  const base = volume.endsWith(markerSuffix) ? volume.slice(0, -markerSuffix.length) : volume;
  const prefix = `base-${entry}-`;
  if (!base.startsWith(prefix)) return undefined;
  const rest = base.slice(prefix.length);
  const dot = rest.lastIndexOf('.');
  const key = rest.slice(0, dot);
  const format = rest.slice(dot + 1) as ImageFormat;
  if (dot <= 0 || !imageFormats.includes(format)) return undefined;
  return { base, marker: markerVolumeName(base), key, format };
}

/** A disk given as a pool volume (`<disk type="volume"><source pool=... volume=...>`). */
export interface VolumeReference {
  pool: string;
  volume: string;
}

export interface DomainFacts {
  name: string;
  /** files the disks name directly or through their backing chain */
  files: string[];
  /** disks given as pool volumes */
  volumes: VolumeReference[];
  /** kvm2's mark, when present and readable */
  mark: InstanceMetadata | undefined;
  /** why a present kvm2 mark could not be read */
  markProblem: string | undefined;
  /** the first-generation kvm provider's mark */
  gen1: boolean;
}

function backingFiles(disk: XmlElement): string[] {
  const files: string[] = [];
  let backing = childElement(disk, 'backingStore');
  // libvirt nests one <backingStore> per layer; an empty one ends the chain.
  for (let depth = 0; backing && depth < 64; depth += 1) {
    const file = attributeOf(childElement(backing, 'source'), 'file');
    if (file) files.push(file);
    backing = childElement(backing, 'backingStore');
  }
  return files;
}

export function domainFacts(xml: string): DomainFacts {
  const domain = childElement(parseXml(xml, 'domain XML'), 'domain');
  const disks = childElements(childElement(domain, 'devices'), 'disk');
  const files: string[] = [];
  const volumes: VolumeReference[] = [];
  for (const disk of disks) {
    const source = childElement(disk, 'source');
    const file = attributeOf(source, 'file');
    if (file) files.push(file);
    const pool = attributeOf(source, 'pool');
    const volume = attributeOf(source, 'volume');
    if (pool && volume) volumes.push({ pool, volume });
    files.push(...backingFiles(disk));
  }
  const metadata = childElement(domain, 'metadata');
  let mark: InstanceMetadata | undefined;
  let markProblem: string | undefined;
  try {
    mark = findInstanceMetadata(metadata);
  } catch (err) {
    if (!(err instanceof CorruptMetadataError)) throw err;
    markProblem = err.message;
  }
  return { name: textOf(childElement(domain, 'name')) ?? '', files, volumes, mark, markProblem, gen1: hasGen1Mark(metadata) };
}

/**
 * Every file a domain depends on: its disks' files, then whatever those back onto according to
 * the pool's volumes (`backingOf`: path → backing path), followed to the end of each chain.
 */
export function dependencyClosure(options: {
  facts: DomainFacts;
  backingOf: ReadonlyMap<string, string>;
  pathOfVolume: (ref: VolumeReference) => string | undefined;
}): Set<string> {
  const { facts, backingOf, pathOfVolume } = options;
  const pending = [...facts.files, ...facts.volumes.map(pathOfVolume).filter((path): path is string => path !== undefined)];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const path = pending.pop() as string;
    if (seen.has(path)) continue;
    seen.add(path);
    const backing = backingOf.get(path);
    if (backing !== undefined) pending.push(backing);
  }
  return seen;
}
