// A domain's whole life through our client against the lab's libvirtd (software emulation):
// define with kvm2 metadata, read the metadata back, start, state, list, destroy, undefine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectListAllDomainsFlags,
  type Domain,
  DomainAffect,
  DomainInterfaceAddressesSource,
  DomainMetadataType,
  DomainState,
  isLibvirtError,
  type LibvirtClient,
} from '@/server/libvirt';
import { metadataPrefix, metadataURI } from '@/server/providers/kvm2/metadata';
import { type Lab, loadLab, virsh } from './harness/lab';
import { openOverSsh, removeRpcTestLeftovers, uniqueName } from './rpc-lab-support';

let lab: Lab;
let libvirt: LibvirtClient;

beforeAll(async () => {
  lab = loadLab();
  await removeRpcTestLeftovers(lab.pool.name);
  libvirt = await openOverSsh(lab);
});

afterAll(async () => {
  await libvirt?.close();
  await removeRpcTestLeftovers(lab.pool.name);
});

const name = uniqueName('dom');
const instanceElement = (uid: string) =>
  `<${metadataPrefix}:instance xmlns:${metadataPrefix}="${metadataURI}">` +
  `<${metadataPrefix}:managed>true</${metadataPrefix}:managed><${metadataPrefix}:uid>${uid}</${metadataPrefix}:uid>` +
  `</${metadataPrefix}:instance>`;

// No disk and no OS: the firmware idles, which is all a lifecycle needs. One NIC on the lab bridge.
const domainXml = (lab: Lab) => `
<domain type="qemu">
  <name>${name}</name>
  <memory unit="MiB">64</memory>
  <vcpu>1</vcpu>
  <cpu mode="maximum"/>
  <metadata>${instanceElement('uid-1')}</metadata>
  <os><type arch="x86_64" machine="pc">hvm</type></os>
  <devices>
    <interface type="bridge"><source bridge="${lab.bridge}"/><model type="virtio"/></interface>
  </devices>
</domain>`;

const metadataOptions = { type: DomainMetadataType.Element, uri: metadataURI };

describe('domain lifecycle', () => {
  let dom: Domain;

  it('defines a domain that virsh then sees', async () => {
    dom = await libvirt.domainDefineXmlFlags({ xml: domainXml(lab) });
    expect(dom.name).toBe(name);
    expect(dom.uuid.toString('hex')).toBe((await virsh(['domuuid', name])).trim().replaceAll('-', ''));
    expect(await libvirt.domainLookupByName({ name })).toMatchObject({ name, uuid: dom.uuid });
  });

  it('gives the kvm2 metadata element back, and stores a changed one', async () => {
    // libvirt hands the element back in its namespace but may drop the prefix.
    expect(await libvirt.domainGetMetadata({ dom, ...metadataOptions })).toMatch(/<(kvm2:)?uid>uid-1<\/(kvm2:)?uid>/);
    // libvirt puts the element into `uri` under prefix `key` itself: it must come without xmlns.
    await libvirt.domainSetMetadata({
      dom,
      ...metadataOptions,
      metadata: '<instance><managed>true</managed><uid>uid-2</uid></instance>',
      key: metadataPrefix,
      flags: DomainAffect.Config,
    });
    expect(await libvirt.domainGetMetadata({ dom, ...metadataOptions })).toMatch(/<(kvm2:)?uid>uid-2<\/(kvm2:)?uid>/);
    const missing = await libvirt.domainGetMetadata({ dom, type: DomainMetadataType.Element, uri: 'https://example.invalid/none' }).catch((e: unknown) => e);
    expect(isLibvirtError(missing, 'ErrNoDomainMetadata')).toBe(true);
  });

  it('starts it, reports it running and lists it among the active domains', async () => {
    await libvirt.domainCreate({ dom });
    expect((await libvirt.domainGetState({ dom })).state).toBe(DomainState.Running);
    expect((await virsh(['domstate', name])).trim()).toBe('running');
    expect((await libvirt.domainGetInfo({ dom })).nrVirtCpu).toBe(1);
    const active = await libvirt.connectListAllDomains({ flags: ConnectListAllDomainsFlags.Active });
    expect(active.map((d) => d.name)).toContain(name);
    expect(active.find((d) => d.name === name)?.id).toBeGreaterThan(0);
    expect(await libvirt.domainGetXmlDesc({ dom })).toContain(`<source bridge='${lab.bridge}'/>`);
    const leases = await libvirt.domainInterfaceAddresses({ dom, source: DomainInterfaceAddressesSource.Lease });
    expect(Array.isArray(leases)).toBe(true); // no guest OS, so no lease: the call itself must work
  });

  it('destroys it: shut off, and listed among the inactive domains', async () => {
    await libvirt.domainDestroy({ dom });
    expect((await libvirt.domainGetState({ dom })).state).toBe(DomainState.Shutoff);
    const inactive = await libvirt.connectListAllDomains({ flags: ConnectListAllDomainsFlags.Inactive });
    expect(inactive.map((d) => d.name)).toContain(name);
  });

  it('undefines it: looking it up afterwards is ErrNoDomain', async () => {
    await libvirt.domainUndefineFlags({ dom });
    const err = await libvirt.domainLookupByName({ name }).catch((e: unknown) => e);
    expect(isLibvirtError(err, 'ErrNoDomain')).toBe(true);
    expect(err).toMatchObject({ code: 42, codeName: 'ErrNoDomain' });
  });

  it('invalid domain XML is ErrXMLError, malformed XML ErrXMLDetail, and the connection stays usable', async () => {
    const invalid = await libvirt.domainDefineXmlFlags({ xml: '<domain type="qemu"><name>rpctest-bad</name></domain>' }).catch((e: unknown) => e);
    expect(isLibvirtError(invalid, 'ErrXMLError')).toBe(true);
    const malformed = await libvirt.domainDefineXmlFlags({ xml: '<domain type="qemu"><name>rpctest-bad' }).catch((e: unknown) => e);
    expect(isLibvirtError(malformed, 'ErrXMLDetail')).toBe(true);
    expect(await libvirt.connectGetHostname()).toBe((await virsh(['hostname'])).trim());
  });
});
