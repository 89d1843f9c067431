// A host as the inventory tests find it: cached images in every state (complete and used,
// complete and unused, a base without marker, a marker without base, another entry's base), and
// domains of every kind (ours, ours but orphaned, the first-generation provider's, hand-made, one
// with an unreadable mark), backing onto the images through overlays or a live backing chain.
import { DomainState } from '@/server/libvirt';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import { gen1MetadataURI, metadataURI } from '@/server/providers/kvm2/metadata';
import type { FakeHypervisor } from '@/test/fakes/fake-libvirt';

export const entry = 'kvm2-home';

/** One host, hv-1, of entry kvm2-home with defaults applied. */
export const settings = withDefaults({
  name: entry,
  type: 'kvm2',
  kvm2: {
    sshKeyFile: '/dev/null',
    insecureIgnoreHostKey: true,
    images: {},
    machineTypes: { small: { vcpus: 1, memoryMiB: 256 } },
    hosts: [{ name: 'hv-1', address: '10.0.0.1:22', user: 'virt', bridge: 'br0' }],
  },
} as Parameters<typeof withDefaults>[0]);
export const poolPath = '/var/lib/libvirt/default';
export const digest = 'ab'.repeat(32);
export const images = {
  used: `base-${entry}-debian.qcow2`,
  unused: `base-${entry}-alpine.qcow2`,
  noMarker: `base-${entry}-0123456789abcdef.qcow2`,
  markerOnly: `base-${entry}-old.raw`,
  otherEntry: 'base-other-debian.qcow2',
};

export const kvm2Mark = (uid: string, managed = 'true') =>
  `<kvm2:instance xmlns:kvm2="${metadataURI}"><kvm2:managed>${managed}</kvm2:managed><kvm2:uid>${uid}</kvm2:uid><kvm2:created>2026-01-02T03:04:05Z</kvm2:created></kvm2:instance>`;
const gen1Mark = `<kvm:instance xmlns:kvm="${gen1MetadataURI}"><kvm:managed>true</kvm:managed></kvm:instance>`;
export const fileDisk = (path: string, backing = '') =>
  `<disk type="file" device="disk"><driver name="qemu" type="qcow2"/><source file="${path}"/>${backing}<target dev="vda" bus="virtio"/></disk>`;
export const domainXml = (name: string, options: { metadata?: string; disks?: string } = {}) =>
  `<domain type="qemu"><name>${name}</name>${options.metadata ? `<metadata>${options.metadata}</metadata>` : ''}<devices>${options.disks ?? ''}</devices></domain>`;

export function populateHost(hypervisor: FakeHypervisor): void {
  const at = (name: string) => `${poolPath}/${name}`;
  hypervisor.addVolume({ name: images.used, format: 'qcow2', content: 'QFI\xfb used image', capacity: 2_147_483_648 });
  hypervisor.addVolume({ name: `${images.used}.sha256`, content: digest });
  hypervisor.addVolume({ name: images.unused, format: 'qcow2', content: 'QFI\xfb unused image', capacity: 1_073_741_824 });
  hypervisor.addVolume({ name: `${images.unused}.sha256`, content: 'cd'.repeat(32) });
  hypervisor.addVolume({ name: images.noMarker, format: 'qcow2', content: 'half a download' });
  hypervisor.addVolume({ name: `${images.markerOnly}.sha256`, content: 'ef'.repeat(32) });
  hypervisor.addVolume({ name: images.otherEntry, format: 'qcow2', content: 'someone else' });
  hypervisor.addVolume({ name: 'proxy-a.qcow2', format: 'qcow2', capacity: 10 * 2 ** 30, backingPath: at(images.used) });
  hypervisor.addVolume({ name: 'proxy-b.qcow2', format: 'qcow2', capacity: 10 * 2 ** 30, backingPath: at(images.used) });
  hypervisor.addVolume({ name: 'proxy-a-seed.iso', content: 'seed' });

  hypervisor.addDomain({
    name: 'proxy-a',
    state: DomainState.Running,
    xml: domainXml('proxy-a', { metadata: kvm2Mark('uid-a'), disks: fileDisk(at('proxy-a.qcow2')) }),
  });
  hypervisor.addDomain({ name: 'proxy-b', xml: domainXml('proxy-b', { metadata: kvm2Mark('uid-gone'), disks: fileDisk(at('proxy-b.qcow2')) }) });
  hypervisor.addDomain({ name: 'old-vm', xml: domainXml('old-vm', { metadata: gen1Mark }) });
  // A live domain libvirt describes with its whole backing chain, its top layer outside the pool.
  const chain = `<backingStore type="file"><format type="qcow2"/><source file="${at(images.noMarker)}"/><backingStore/></backingStore>`;
  hypervisor.addDomain({ name: 'hand-made', state: DomainState.Running, xml: domainXml('hand-made', { disks: fileDisk('/srv/vms/hand-made.qcow2', chain) }) });
  hypervisor.addDomain({ name: 'broken-mark', xml: domainXml('broken-mark', { metadata: kvm2Mark('uid-x', 'maybe') }) });
}
