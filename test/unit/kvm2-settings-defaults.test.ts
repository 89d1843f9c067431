import { describe, expect, it } from 'vitest';
import { validateProvidersConfig, type Kvm2Entry } from '@/server/providers/config';
import { fallbackVirtType, resolveVirtType, withDefaults } from '@/server/providers/kvm2/kvm2';
import { offeredDomainTypes } from '@/server/providers/kvm2/xml-parse';

function loaded(extra: { block?: Record<string, unknown>; host?: Record<string, unknown>; image?: Record<string, unknown> } = {}): Kvm2Entry {
  const [entry] = validateProvidersConfig([
    {
      name: 'kvm2-home',
      type: 'kvm2',
      kvm2: {
        sshKeyFile: '/keys/id',
        knownHostsFile: '/keys/known_hosts',
        images: { 'debian-13': { url: 'https://example.org/d13.qcow2', ...extra.image } },
        machineTypes: { small: { vcpus: 1, memoryMiB: 1024 } },
        hosts: [{ name: 'beelink', address: 'beelink.example.net', user: 'admin', bridge: 'br0', ...extra.host }],
        ...extra.block,
      },
    },
  ]);
  return entry as Kvm2Entry;
}

describe('withDefaults', () => {
  it('fills every default of the spec', () => {
    const settings = withDefaults(loaded());
    expect(settings).toMatchObject({
      name: 'kvm2-home',
      insecureIgnoreHostKey: false,
      diskSizeGb: 10,
      installGuestAgent: true,
      vendorData: undefined,
    });
    expect(settings.images.get('debian-13')).toEqual({
      url: 'https://example.org/d13.qcow2',
      sha256: undefined,
      format: 'qcow2',
      firmware: 'uefi',
    });
    expect(settings.hosts[0]).toMatchObject({
      socket: '/var/run/libvirt/libvirt-sock',
      pool: 'default',
      endpoint: { host: 'beelink.example.net', port: 22 },
    });
  });

  it('keeps virtType unset distinguishable: detect, falling back to kvm', () => {
    expect(withDefaults(loaded()).hosts[0]?.virtType).toBe('detect');
    expect(fallbackVirtType).toBe('kvm');
    expect(withDefaults(loaded({ host: { virtType: 'kvm' } })).hosts[0]?.virtType).toBe('kvm');
    expect(withDefaults(loaded({ host: { virtType: 'qemu' } })).hosts[0]?.virtType).toBe('qemu');
  });

  it('keeps explicit values and lower-cases the digest', () => {
    const settings = withDefaults(
      loaded({
        block: { diskSizeGb: 25, installGuestAgent: false, insecureIgnoreHostKey: true, vendorData: '#cloud-config\n' },
        host: { socket: '/run/libvirt/libvirt-sock', pool: 'vms', address: '[fd00::1]:2222' },
        image: { sha256: 'AB'.repeat(32), format: 'raw', firmware: 'bios' },
      }),
    );
    expect(settings).toMatchObject({ diskSizeGb: 25, installGuestAgent: false, insecureIgnoreHostKey: true, vendorData: '#cloud-config\n' });
    expect(settings.images.get('debian-13')).toMatchObject({ sha256: 'ab'.repeat(32), format: 'raw', firmware: 'bios' });
    expect(settings.hosts[0]).toMatchObject({ socket: '/run/libvirt/libvirt-sock', pool: 'vms', endpoint: { host: 'fd00::1', port: 2222 } });
  });

  it('never modifies the loaded config, and shares nothing with it', () => {
    const entry = loaded();
    const before = structuredClone(entry);
    const settings = withDefaults(entry);
    expect(entry).toEqual(before);

    (settings.hosts[0] as { pool: string }).pool = 'changed';
    (settings.images.get('debian-13') as { format: string }).format = 'raw';
    (settings.machineTypes.get('small') as { vcpus: number }).vcpus = 64;
    expect(entry).toEqual(before);
    expect(withDefaults(entry).hosts[0]?.pool).toBe('default');
  });

  it('does not resolve inherited object keys as catalogue entries', () => {
    const settings = withDefaults(loaded());
    expect(settings.images.get('constructor')).toBeUndefined();
    expect(settings.machineTypes.get('toString')).toBeUndefined();
  });
});

describe('virtType detection', () => {
  // Trimmed ConnectGetCapabilities output of a host without usable KVM, plus an i686 guest.
  const capabilities = (domains: string[]) => `<capabilities>
  <host><cpu><arch>x86_64</arch></cpu></host>
  <guest>
    <os_type>hvm</os_type>
    <arch name='i686'><wordsize>32</wordsize><domain type='qemu'/><domain type='kvm'/></arch>
  </guest>
  <guest>
    <os_type>hvm</os_type>
    <arch name='x86_64'><wordsize>64</wordsize><emulator>/usr/bin/qemu-system-x86_64</emulator>${domains.map((type) => `<domain type='${type}'/>`).join('')}</arch>
  </guest>
</capabilities>`;

  it('reads the domain types offered for x86_64 hvm guests', () => {
    expect(offeredDomainTypes(capabilities(['qemu']))).toEqual(['qemu']);
    expect(offeredDomainTypes(capabilities(['qemu', 'kvm']))).toEqual(['qemu', 'kvm']);
  });

  it.each([
    { setting: 'detect' as const, offered: ['qemu', 'kvm'], chosen: 'kvm' },
    { setting: 'detect' as const, offered: ['qemu'], chosen: 'qemu' },
    { setting: 'detect' as const, offered: undefined, chosen: 'kvm' },
    { setting: 'detect' as const, offered: [], chosen: 'kvm' },
    { setting: 'qemu' as const, offered: ['qemu', 'kvm'], chosen: 'qemu' },
    { setting: 'kvm' as const, offered: ['qemu'], chosen: 'kvm' },
  ])('$setting with $offered offered gives $chosen', ({ setting, offered, chosen }) => {
    expect(resolveVirtType(setting, offered)).toBe(chosen);
  });
});
