// Reading libvirt's XML back: domain descriptions (DomainGetXMLDesc) and volume descriptions
// (StorageVolGetXMLDesc). Tolerant of what libvirt adds (defaults, addresses, expanded firmware)
// and strict about what kvm2 relies on.
import type { Firmware } from '@/server/providers/config-kvm2';
import { findInstanceMetadata, hasGen1Mark, type InstanceMetadata } from './metadata';
import { attributeOf, childElement, childElements, parseXml, textOf, XmlSyntaxError, type XmlElement } from './xml-codec';

// libvirt's scaled-integer units (docs: formatdomain "memory" / formatstorage "capacity").
const unitBytes: Record<string, number> = {
  b: 1,
  bytes: 1,
  kb: 1000,
  k: 1024,
  kib: 1024,
  mb: 1000 ** 2,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1000 ** 3,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  tb: 1000 ** 4,
  t: 1024 ** 4,
  tib: 1024 ** 4,
};

/** A scaled integer element in bytes; `defaultUnit` when it names none. */
export function scaledBytes(element: XmlElement | undefined, defaultUnit: string): number | undefined {
  const text = textOf(element);
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const unit = (attributeOf(element, 'unit') ?? defaultUnit).toLowerCase();
  const factor = unitBytes[unit];
  if (factor === undefined) throw new XmlSyntaxError(`unknown unit ${JSON.stringify(unit)}`);
  return Number(text) * factor;
}

export interface DomainDisk {
  type: string | undefined;
  device: string | undefined;
  driverType: string | undefined;
  /** `<source file=...>` for file disks */
  sourceFile: string | undefined;
  targetDev: string | undefined;
  targetBus: string | undefined;
  readonly: boolean;
}

export interface DomainInterface {
  type: string | undefined;
  bridge: string | undefined;
  model: string | undefined;
  mac: string | undefined;
}

export interface DomainDescription {
  name: string;
  uuid: string | undefined;
  virtType: string | undefined;
  memoryBytes: number | undefined;
  vcpus: number | undefined;
  machine: string | undefined;
  arch: string | undefined;
  firmware: Firmware;
  /** false when secure boot is explicitly off, true when on, undefined when not said */
  secureBoot: boolean | undefined;
  cpuMode: string | undefined;
  /** names of the elements under <features> */
  features: string[];
  disks: DomainDisk[];
  interfaces: DomainInterface[];
  serialTypes: string[];
  consoleTypes: string[];
  /** target names of the virtio channels */
  channels: string[];
  rngs: { model: string | undefined; backendModel: string | undefined; backend: string | undefined }[];
  graphicsCount: number;
  /** kvm2's mark; undefined when the domain has none (throws CorruptMetadataError when unreadable) */
  metadata: InstanceMetadata | undefined;
  /** whether the first-generation kvm provider marked this domain */
  gen1Marked: boolean;
}

function firmwareOf(os: XmlElement | undefined): Firmware {
  if (attributeOf(os, 'firmware') === 'efi') return 'uefi';
  const loader = childElement(os, 'loader');
  return attributeOf(loader, 'type') === 'pflash' ? 'uefi' : 'bios';
}

function secureBootOf(os: XmlElement | undefined): boolean | undefined {
  const feature = childElements(childElement(os, 'firmware'), 'feature').find((item) => attributeOf(item, 'name') === 'secure-boot');
  const enabled = attributeOf(feature, 'enabled');
  return enabled === undefined ? undefined : enabled === 'yes';
}

function diskOf(disk: XmlElement): DomainDisk {
  const target = childElement(disk, 'target');
  return {
    type: attributeOf(disk, 'type'),
    device: attributeOf(disk, 'device'),
    driverType: attributeOf(childElement(disk, 'driver'), 'type'),
    sourceFile: attributeOf(childElement(disk, 'source'), 'file'),
    targetDev: attributeOf(target, 'dev'),
    targetBus: attributeOf(target, 'bus'),
    readonly: childElement(disk, 'readonly') !== undefined,
  };
}

function interfaceOf(item: XmlElement): DomainInterface {
  return {
    type: attributeOf(item, 'type'),
    bridge: attributeOf(childElement(item, 'source'), 'bridge'),
    model: attributeOf(childElement(item, 'model'), 'type'),
    mac: attributeOf(childElement(item, 'mac'), 'address'),
  };
}

const numberOrUndefined = (text: string | undefined) => (text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined);

export function parseDomainXML(xml: string): DomainDescription {
  const domain = childElement(parseXml(xml, 'domain XML'), 'domain');
  if (!domain) throw new XmlSyntaxError('domain XML has no <domain> element');
  const os = childElement(domain, 'os');
  const osType = childElement(os, 'type');
  const devices = childElement(domain, 'devices');
  const metadata = childElement(domain, 'metadata');
  const features = childElement(domain, 'features');
  return {
    name: textOf(childElement(domain, 'name')) ?? '',
    uuid: textOf(childElement(domain, 'uuid')),
    virtType: attributeOf(domain, 'type'),
    memoryBytes: scaledBytes(childElement(domain, 'memory'), 'KiB'),
    vcpus: numberOrUndefined(textOf(childElement(domain, 'vcpu'))),
    machine: attributeOf(osType, 'machine'),
    arch: attributeOf(osType, 'arch'),
    firmware: firmwareOf(os),
    secureBoot: secureBootOf(os),
    cpuMode: attributeOf(childElement(domain, 'cpu'), 'mode'),
    features: features ? Object.keys(features).filter((key) => !key.startsWith('@_') && key !== '#text') : [],
    disks: childElements(devices, 'disk').map(diskOf),
    interfaces: childElements(devices, 'interface').map(interfaceOf),
    serialTypes: childElements(devices, 'serial').map((item) => attributeOf(item, 'type') ?? ''),
    consoleTypes: childElements(devices, 'console').map((item) => attributeOf(item, 'type') ?? ''),
    channels: childElements(devices, 'channel')
      .map((item) => attributeOf(childElement(item, 'target'), 'name'))
      .filter((name): name is string => name !== undefined),
    rngs: childElements(devices, 'rng').map((item) => {
      const backend = childElement(item, 'backend');
      return { model: attributeOf(item, 'model'), backendModel: attributeOf(backend, 'model'), backend: textOf(backend) };
    }),
    graphicsCount: childElements(devices, 'graphics').length,
    metadata: findInstanceMetadata(metadata),
    gen1Marked: hasGen1Mark(metadata),
  };
}

export interface VolumeDescription {
  name: string;
  key: string | undefined;
  /** the file path (`<target><path>`) */
  path: string | undefined;
  format: string | undefined;
  capacityBytes: number | undefined;
  allocationBytes: number | undefined;
  /** for an overlay: the backing file's path and format */
  backingPath: string | undefined;
  backingFormat: string | undefined;
}

export function parseVolumeXML(xml: string): VolumeDescription {
  const volume = childElement(parseXml(xml, 'volume XML'), 'volume');
  if (!volume) throw new XmlSyntaxError('volume XML has no <volume> element');
  const target = childElement(volume, 'target');
  const backing = childElement(volume, 'backingStore');
  return {
    name: textOf(childElement(volume, 'name')) ?? '',
    key: textOf(childElement(volume, 'key')),
    path: textOf(childElement(target, 'path')),
    format: attributeOf(childElement(target, 'format'), 'type'),
    capacityBytes: scaledBytes(childElement(volume, 'capacity'), 'bytes'),
    allocationBytes: scaledBytes(childElement(volume, 'allocation'), 'bytes'),
    backingPath: textOf(childElement(backing, 'path')),
    backingFormat: attributeOf(childElement(backing, 'format'), 'type'),
  };
}

/**
 * The domain types libvirt offers for hvm guests of `arch` (ConnectGetCapabilities'
 * `<guest><os_type>hvm</os_type><arch name=...><domain type=.../>`), e.g. ['qemu', 'kvm'].
 */
export function offeredDomainTypes(capabilitiesXml: string, arch = 'x86_64'): string[] {
  const capabilities = childElement(parseXml(capabilitiesXml, 'capabilities XML'), 'capabilities');
  const types = childElements(capabilities, 'guest')
    .filter((guest) => textOf(childElement(guest, 'os_type')) === 'hvm')
    .flatMap((guest) => childElements(guest, 'arch'))
    .filter((item) => attributeOf(item, 'name') === arch)
    .flatMap((item) => childElements(item, 'domain'))
    .map((domain) => attributeOf(domain, 'type'))
    .filter((type): type is string => type !== undefined);
  return [...new Set(types)];
}
