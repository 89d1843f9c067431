// The domain definition (buildDomainXML): a q35 machine with ACPI and APIC, the overlay on vda
// (virtio) and the seed as a read-only SATA cdrom on sda, one virtio NIC on the host bridge, a
// serial console on a pty, the guest-agent channel, a virtio RNG, no graphics, and kvm2's mark in
// <metadata>. Disks are type="file" with the paths StorageVolGetPath returned, because AppArmor
// derives QEMU's profile from those paths and volume-type disks fail with permission denied on
// stock Debian and Ubuntu hosts. The overlay's backing chain is spelled out and ended with an
// empty <backingStore/>, so libvirt never probes an image header for further files to open and
// re-own (a hostile base could name any host file).
import type { Firmware, ImageFormat, VirtType } from '@/server/providers/config-kvm2';
import { ErrPermanent } from '@/server/providers/errors';
import { metadataNode, type InstanceMetadata } from './metadata';
import { buildXml, type XmlElement } from './xml-codec';

export const guestAgentChannel = 'org.qemu.guest_agent.0';

export interface DomainSpec {
  name: string;
  /** `kvm`, or `qemu` for software emulation on hosts without working KVM */
  virtType: VirtType;
  memoryMiB: number;
  vcpus: number;
  firmware: Firmware;
  /** StorageVolGetPath of the overlay (qcow2) */
  overlayPath: string;
  /** the base image the overlay backs onto: StorageVolGetPath and format; the chain ends there */
  base: { path: string; format: ImageFormat };
  /** StorageVolGetPath of the seed ISO (raw) */
  seedPath: string;
  bridge: string;
  metadata: InstanceMetadata;
}

// libvirt refuses host-passthrough under emulation; `maximum` gives the guest every feature QEMU
// can emulate.
const cpuModeByVirtType: Record<VirtType, string> = {
  kvm: 'host-passthrough',
  qemu: 'maximum',
};

// UEFI: OVMF picked by libvirt itself, secure boot off. BIOS: SeaBIOS, the default, needs nothing.
const osByFirmware: Record<Firmware, (os: XmlElement) => XmlElement> = {
  uefi: (os) => ({ '@_firmware': 'efi', ...os, firmware: { feature: { '@_enabled': 'no', '@_name': 'secure-boot' } } }),
  bios: (os) => os,
};

function requirePositiveInteger(name: string, value: number): string {
  if (!Number.isSafeInteger(value) || value <= 0) throw new ErrPermanent(`domain ${name} must be a positive whole number`);
  return String(value);
}

function requireAbsolutePath(name: string, value: string): string {
  if (!value.startsWith('/')) throw new ErrPermanent(`domain ${name} ${JSON.stringify(value)} is not an absolute path`);
  return value;
}

export function buildDomainXML(spec: DomainSpec): string {
  const os = osByFirmware[spec.firmware]({
    type: { '@_arch': 'x86_64', '@_machine': 'q35', '#text': 'hvm' },
    boot: { '@_dev': 'hd' },
  });
  return buildXml({
    domain: {
      '@_type': spec.virtType,
      name: spec.name,
      metadata: metadataNode(spec.metadata),
      memory: { '@_unit': 'MiB', '#text': requirePositiveInteger('memoryMiB', spec.memoryMiB) },
      vcpu: requirePositiveInteger('vcpus', spec.vcpus),
      os,
      features: { acpi: '', apic: '' },
      cpu: { '@_mode': cpuModeByVirtType[spec.virtType] },
      devices: {
        disk: [
          {
            '@_type': 'file',
            '@_device': 'disk',
            driver: { '@_name': 'qemu', '@_type': 'qcow2' },
            source: { '@_file': requireAbsolutePath('overlayPath', spec.overlayPath) },
            backingStore: {
              '@_type': 'file',
              format: { '@_type': spec.base.format },
              source: { '@_file': requireAbsolutePath('base.path', spec.base.path) },
              backingStore: '',
            },
            target: { '@_dev': 'vda', '@_bus': 'virtio' },
          },
          {
            '@_type': 'file',
            '@_device': 'cdrom',
            driver: { '@_name': 'qemu', '@_type': 'raw' },
            source: { '@_file': requireAbsolutePath('seedPath', spec.seedPath) },
            target: { '@_dev': 'sda', '@_bus': 'sata' },
            readonly: '',
          },
        ],
        interface: {
          '@_type': 'bridge',
          source: { '@_bridge': spec.bridge },
          model: { '@_type': 'virtio' },
        },
        serial: { '@_type': 'pty', target: { '@_port': '0' } },
        console: { '@_type': 'pty', target: { '@_type': 'serial', '@_port': '0' } },
        channel: { '@_type': 'unix', target: { '@_type': 'virtio', '@_name': guestAgentChannel } },
        rng: { '@_model': 'virtio', backend: { '@_model': 'random', '#text': '/dev/urandom' } },
      },
    },
  });
}
