// kvm2's instance inspection (the diagnosis's read-only look at one domain): domain state in
// virsh's words, the seed found on the domain's disks by its volume path, each address source's
// answer (a refusal is an answer, not a failure), on a fresh connection of its own that it closes,
// and never a call that changes anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainInterfaceAddressesSource as Source, DomainState, IpAddrType } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { seedVolumeName } from '@/server/providers/kvm2/volume';
import { failureOf, makeHarness, providerIdOf, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const readOnly = new Set([
  'domainLookupByName',
  'domainGetState',
  'domainGetXmlDesc',
  'domainInterfaceAddresses',
  'storagePoolLookupByName',
  'storageVolLookupByName',
  'storageVolGetPath',
]);

async function createdHarness(name: string) {
  const harness = makeHarness({ mirror });
  harness.seedCache();
  const instance = await harness.provider.create(harness.request(name));
  harness.hypervisor.resetCalls();
  return { harness, providerID: instance.providerID };
}

describe("kvm2's instance inspection", () => {
  it('reads a running domain, its seed and both address sources on a fresh connection, with reads only', async () => {
    const { harness, providerID } = await createdHarness('proxy-look');
    const domain = harness.hypervisor.domains.get('proxy-look');
    if (!domain) throw new Error('the domain was not created');
    domain.addresses[Source.Arp] = [{ name: 'vnet0', hwaddr: '52:54:00:00:00:01', addrs: [{ addr: '10.9.8.7', type: IpAddrType.IPv4, prefix: 24 }] }];

    const inspection = await harness.provider.inspector.open(providerID);
    expect({ host: inspection.host, domain: inspection.domain }).toEqual({ host: 'h1', domain: 'proxy-look' });
    await expect(inspection.domainFacts()).resolves.toEqual({ defined: true, state: 'running', running: true });
    await expect(inspection.seed()).resolves.toEqual({ volume: seedVolumeName('proxy-look'), volumeExists: true, attachedAs: 'sda (cdrom)' });
    await expect(inspection.addresses('agent')).resolves.toEqual({
      source: 'agent',
      addresses: [],
      error: expect.stringContaining('QEMU guest agent is not connected'),
    });
    await expect(inspection.addresses('arp')).resolves.toEqual({ source: 'arp', addresses: ['10.9.8.7'], ip: '10.9.8.7' });
    await inspection.close();

    expect(harness.backend.freshDials).toEqual(['fresh#1']);
    expect(harness.backend.freshCloses).toEqual(['fresh#1']);
    const methods = harness.hypervisor.calls.map((call) => call.method);
    expect(methods.filter((method) => !readOnly.has(method))).toEqual([]);
    expect(harness.hypervisor.calls.every((call) => call.connection === 'fresh#1')).toBe(true);
  });

  it('says a stopped domain is not running, and a missing one is not defined', async () => {
    const { harness, providerID } = await createdHarness('proxy-off');
    (harness.hypervisor.domains.get('proxy-off') as { state: number }).state = DomainState.Shutoff;
    const inspection = await harness.provider.inspector.open(providerID);
    await expect(inspection.domainFacts()).resolves.toEqual({ defined: true, state: 'shut off', running: false });
    await inspection.close();

    const missing = await harness.provider.inspector.open(providerIdOf('h1', 'proxy-none'));
    await expect(missing.domainFacts()).resolves.toEqual({ defined: false, running: false });
    expect(errorClassOf(await failureOf(missing.seed()))).toBe('notFound');
    await missing.close();
  });

  it('finds no seed on a domain whose disks do not carry it, and notices a seed volume gone from the pool', async () => {
    const { harness, providerID } = await createdHarness('proxy-seedless');
    const pool = [...harness.hypervisor.pools.values()][0];
    pool?.volumes.delete(seedVolumeName('proxy-seedless'));
    const inspection = await harness.provider.inspector.open(providerID);
    await expect(inspection.seed()).resolves.toEqual({ volume: seedVolumeName('proxy-seedless'), volumeExists: false, attachedAs: 'sda (cdrom)' });
    const domain = harness.hypervisor.domains.get('proxy-seedless') as { xml: string };
    domain.xml = domain.xml.replace(/<disk type="file" device="cdrom">[\s\S]*?<\/disk>/, '');
    await expect(inspection.seed()).resolves.toEqual({ volume: seedVolumeName('proxy-seedless'), volumeExists: false });
    await inspection.close();
  });

  it('refuses a providerID naming a host it does not configure, permanently, without dialling', async () => {
    const harness = makeHarness({ mirror });
    const err = await failureOf(harness.provider.inspector.open(providerIdOf('elsewhere', 'proxy-x')));
    expect(errorClassOf(err)).toBe('permanent');
    expect(err?.message).toContain('"elsewhere", which is not in kvm2.hosts');
    expect(harness.backend.freshDials).toEqual([]);
  });
});
