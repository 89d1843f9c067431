import { describe, expect, it } from 'vitest';
import { isPermanent } from '@/server/providers/errors';
import { metadataURI } from '@/server/providers/kvm2/metadata';
import { buildDomainXML, type DomainSpec } from '@/server/providers/kvm2/xml';
import { parseDomainXML } from '@/server/providers/kvm2/xml-parse';
import { attributeOf, childElement, childElements, childTags, parseXml } from '@/server/providers/kvm2/xml-codec';

function spec(overrides: Partial<DomainSpec> = {}): DomainSpec {
  return {
    name: 'proxy-abc123',
    virtType: 'kvm',
    memoryMiB: 1024,
    vcpus: 2,
    firmware: 'uefi',
    overlayPath: '/var/lib/libvirt/images/proxy-abc123.qcow2',
    base: { path: '/var/lib/libvirt/images/base-home-debian-13.qcow2', format: 'qcow2' },
    seedPath: '/var/lib/libvirt/images/proxy-abc123-seed.iso',
    bridge: 'br0',
    metadata: { managed: true, uid: '0f3a9c1e-uid', created: '2026-09-16T17:42:11Z' },
    ...overrides,
  };
}

describe('buildDomainXML', () => {
  it.each(['qcow2', 'raw'] as const)('spells out the overlay chain down to the %s base and ends it, so libvirt probes no image header', (format) => {
    const xml = parseXml(buildDomainXML(spec({ base: { path: '/pool/base.img', format } })), 'test');
    const [vda] = childElements(childElement(childElement(xml, 'domain'), 'devices'), 'disk');
    const base = childElement(vda, 'backingStore');
    expect(attributeOf(base, 'type')).toBe('file');
    expect(attributeOf(childElement(base, 'format'), 'type')).toBe(format);
    expect(attributeOf(childElement(base, 'source'), 'file')).toBe('/pool/base.img');
    const end = childElement(base, 'backingStore');
    expect(end).toBeDefined();
    expect(end && childTags(end)).toEqual([]);
  });

  it.each([
    { virtType: 'kvm' as const, firmware: 'uefi' as const, cpuMode: 'host-passthrough' },
    { virtType: 'kvm' as const, firmware: 'bios' as const, cpuMode: 'host-passthrough' },
    { virtType: 'qemu' as const, firmware: 'uefi' as const, cpuMode: 'maximum' },
    { virtType: 'qemu' as const, firmware: 'bios' as const, cpuMode: 'maximum' },
  ])('describes the spec domain ($virtType, $firmware)', ({ virtType, firmware, cpuMode }) => {
    const parsed = parseDomainXML(buildDomainXML(spec({ virtType, firmware })));
    expect(parsed).toMatchObject({
      name: 'proxy-abc123',
      virtType,
      memoryBytes: 1024 * 1024 * 1024,
      vcpus: 2,
      machine: 'q35',
      arch: 'x86_64',
      firmware,
      secureBoot: firmware === 'uefi' ? false : undefined,
      cpuMode,
      graphicsCount: 0,
      metadata: { managed: true, uid: '0f3a9c1e-uid', created: '2026-09-16T17:42:11Z' },
      gen1Marked: false,
    });
    expect(parsed.features.sort()).toEqual(['acpi', 'apic']);
    expect(parsed.disks).toEqual([
      {
        type: 'file',
        device: 'disk',
        driverType: 'qcow2',
        sourceFile: '/var/lib/libvirt/images/proxy-abc123.qcow2',
        targetDev: 'vda',
        targetBus: 'virtio',
        readonly: false,
      },
      {
        type: 'file',
        device: 'cdrom',
        driverType: 'raw',
        sourceFile: '/var/lib/libvirt/images/proxy-abc123-seed.iso',
        targetDev: 'sda',
        targetBus: 'sata',
        readonly: true,
      },
    ]);
    expect(parsed.interfaces).toEqual([{ type: 'bridge', bridge: 'br0', model: 'virtio', mac: undefined }]);
    expect(parsed.serialTypes).toEqual(['pty']);
    expect(parsed.consoleTypes).toEqual(['pty']);
    expect(parsed.channels).toEqual(['org.qemu.guest_agent.0']);
    expect(parsed.rngs).toEqual([{ model: 'virtio', backendModel: 'random', backend: '/dev/urandom' }]);
  });

  it('writes UEFI as firmware="efi" with secure boot off, and BIOS with neither', () => {
    const uefi = parseXml(buildDomainXML(spec({ firmware: 'uefi' })), 'test');
    const uefiOs = childElement(childElement(uefi, 'domain'), 'os');
    expect(uefiOs?.['@_firmware']).toBe('efi');
    expect(uefiOs?.firmware).toEqual({ feature: { '@_enabled': 'no', '@_name': 'secure-boot' } });

    const bios = parseXml(buildDomainXML(spec({ firmware: 'bios' })), 'test');
    const biosOs = childElement(childElement(bios, 'domain'), 'os');
    expect(biosOs?.['@_firmware']).toBeUndefined();
    expect(biosOs?.firmware).toBeUndefined();
    expect(biosOs?.loader).toBeUndefined();
  });

  it('has no graphics element at all', () => {
    expect(buildDomainXML(spec())).not.toMatch(/<graphics/);
  });

  it('marks the domain in the kvm2 namespace with prefix kvm2', () => {
    const xml = buildDomainXML(spec());
    expect(xml).toContain(`<kvm2:instance xmlns:kvm2="${metadataURI}">`);
    expect(xml).toContain('<kvm2:managed>true</kvm2:managed>');
    expect(xml).toContain('<kvm2:uid>0f3a9c1e-uid</kvm2:uid>');
    expect(xml).toContain('<kvm2:created>2026-09-16T17:42:11Z</kvm2:created>');
  });

  it('escapes <, & and quotes in every text and attribute value', () => {
    const awkward = `a<b&c"d'e>`;
    const xml = buildDomainXML(
      spec({
        name: awkward,
        bridge: awkward,
        overlayPath: `/pool/${awkward}.qcow2`,
        seedPath: `/pool/${awkward}-seed.iso`,
        metadata: { managed: false, uid: awkward, created: '' },
      }),
    );
    expect(xml).not.toContain(awkward);
    expect(xml).toContain('a&lt;b&amp;c&quot;d&apos;e&gt;');
    const parsed = parseDomainXML(xml);
    expect(parsed.name).toBe(awkward);
    expect(parsed.interfaces[0]?.bridge).toBe(awkward);
    expect(parsed.disks.map((disk) => disk.sourceFile)).toEqual([`/pool/${awkward}.qcow2`, `/pool/${awkward}-seed.iso`]);
    expect(parsed.metadata).toEqual({ managed: false, uid: awkward, created: '' });
  });

  it.each([
    { what: 'zero memory', overrides: { memoryMiB: 0 }, message: 'domain memoryMiB must be a positive whole number' },
    { what: 'fractional vcpus', overrides: { vcpus: 1.5 }, message: 'domain vcpus must be a positive whole number' },
    { what: 'relative overlay path', overrides: { overlayPath: 'x.qcow2' }, message: 'domain overlayPath "x.qcow2" is not an absolute path' },
  ])('refuses $what permanently', ({ overrides, message }) => {
    let caught: unknown;
    try {
      buildDomainXML(spec(overrides));
    } catch (err) {
      caught = err;
    }
    expect(isPermanent(caught)).toBe(true);
    expect((caught as Error).message).toBe(message);
  });
});

describe('parseDomainXML on what libvirt returns', () => {
  // Shaped like `virsh dumpxml` of a defined kvm2 domain: single quotes, units in KiB, expanded
  // firmware, addresses and default devices added by libvirt.
  const dumped = `<domain type='qemu' id='3'>
  <name>proxy-abc123</name>
  <uuid>6f1c1a3e-8b0d-4f7e-9a57-0d1c2b3a4f5e</uuid>
  <metadata>
    <kvm2:instance xmlns:kvm2="${metadataURI}">
      <kvm2:managed>true</kvm2:managed>
      <kvm2:uid>uid-1</kvm2:uid>
      <kvm2:created>2026-09-16T17:42:11Z</kvm2:created>
    </kvm2:instance>
  </metadata>
  <memory unit='KiB'>1048576</memory>
  <currentMemory unit='KiB'>1048576</currentMemory>
  <vcpu placement='static'>1</vcpu>
  <os firmware='efi'>
    <type arch='x86_64' machine='pc-q35-7.2'>hvm</type>
    <firmware><feature enabled='no' name='secure-boot'/><feature enabled='no' name='enrolled-keys'/></firmware>
    <loader readonly='yes' type='pflash'>/usr/share/OVMF/OVMF_CODE_4M.fd</loader>
    <nvram template='/usr/share/OVMF/OVMF_VARS_4M.fd'>/var/lib/libvirt/qemu/nvram/proxy-abc123_VARS.fd</nvram>
    <boot dev='hd'/>
  </os>
  <features><acpi/><apic/></features>
  <cpu mode='maximum' check='none'/>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file='/var/lib/libvirt/images/proxy-abc123.qcow2' index='2'/>
      <backingStore type='file' index='3'><format type='qcow2'/><source file='/var/lib/libvirt/images/base-lab-x.qcow2'/></backingStore>
      <target dev='vda' bus='virtio'/>
    </disk>
    <disk type='file' device='cdrom'>
      <driver name='qemu' type='raw'/>
      <source file='/var/lib/libvirt/images/proxy-abc123-seed.iso' index='1'/>
      <target dev='sda' bus='sata'/>
      <readonly/>
    </disk>
    <interface type='bridge'>
      <mac address='52:54:00:12:34:56'/>
      <source bridge='br0'/>
      <model type='virtio'/>
    </interface>
    <memballoon model='virtio'/>
  </devices>
</domain>`;

  it('reads names, sizes, expanded firmware and the mark', () => {
    const parsed = parseDomainXML(dumped);
    expect(parsed).toMatchObject({
      name: 'proxy-abc123',
      uuid: '6f1c1a3e-8b0d-4f7e-9a57-0d1c2b3a4f5e',
      virtType: 'qemu',
      memoryBytes: 1024 * 1024 * 1024,
      vcpus: 1,
      firmware: 'uefi',
      secureBoot: false,
      cpuMode: 'maximum',
      metadata: { managed: true, uid: 'uid-1', created: '2026-09-16T17:42:11Z' },
    });
    expect(parsed.interfaces[0]?.mac).toBe('52:54:00:12:34:56');
    expect(parsed.disks[0]?.sourceFile).toBe('/var/lib/libvirt/images/proxy-abc123.qcow2');
  });

  it('reads a domain without metadata as unmarked', () => {
    expect(parseDomainXML("<domain type='kvm'><name>foreign</name></domain>")).toMatchObject({
      name: 'foreign',
      metadata: undefined,
      gen1Marked: false,
      firmware: 'bios',
    });
  });

  it('refuses XML that is not well-formed', () => {
    expect(() => parseDomainXML('<domain><name>x</domain>')).toThrow(/domain XML is not well-formed XML/);
  });
});
