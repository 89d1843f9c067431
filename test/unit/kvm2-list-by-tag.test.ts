// ListByTag sweeps every configured host for domains carrying kvm2's mark. Foreign domains (no
// mark, the kvm provider's) are left out; one that cannot be read is skipped with a log line
// rather than failing the sweep; an unreachable host fails it. Each domain's metadata is read once,
// every state comes from one bulk stats call per host, and no addresses are discovered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionKilledError, DomainInterfaceAddressesSource as Source, DomainState, IpAddrType } from '@/server/libvirt';
import { managedTag } from '@/server/providers/contract';
import { errorClassOf } from '@/server/providers/errors';
import { buildMetadataXML, gen1MetadataURI, metadataURI } from '@/server/providers/kvm2/metadata';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { makeHarness, providerIdOf, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const mark = (uid: string, managed = true) => ({ [metadataURI]: buildMetadataXML({ managed, uid, created: '2026-01-01T00:00:00Z' }) });

function twoHosts() {
  const h1 = new FakeHypervisor();
  const h2 = new FakeHypervisor();
  const harness = makeHarness({ mirror, hosts: ['h1', 'h2'], hypervisors: { h1, h2 } });
  return { harness, h1, h2 };
}

describe('ListByTag', () => {
  it('returns the marked domains of every host, with their state, and nothing foreign', async () => {
    const { harness, h1, h2 } = twoHosts();
    h1.addDomain({
      name: 'proxy-a',
      state: DomainState.Running,
      metadata: mark('ua'),
      addresses: { [Source.Agent]: [{ name: 'eth0', hwaddr: null, addrs: [{ type: IpAddrType.IPv4, addr: '10.0.0.9', prefix: 24 }] }] },
    });
    h1.addDomain({ name: 'hand-made', state: DomainState.Running });
    h1.addDomain({ name: 'old-kvm', state: DomainState.Running, metadata: { [gen1MetadataURI]: '<instance><managed>true</managed></instance>' } });
    h1.addDomain({ name: 'unmanaged', state: DomainState.Running, metadata: mark('ux', false) });
    h2.addDomain({ name: 'proxy-b', state: DomainState.Shutoff, metadata: mark('ub') });

    const instances = await harness.provider.listByTag(managedTag);

    expect(instances.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      // Running but not addressed as far as a sweep knows: it asks for no addresses (Get does).
      { providerID: providerIdOf('h1', 'proxy-a'), host: 'h1', name: 'proxy-a', state: 'Provisioning', uid: 'ua', created: '2026-01-01T00:00:00Z' },
      { providerID: providerIdOf('h2', 'proxy-b'), host: 'h2', name: 'proxy-b', state: 'Stopped', uid: 'ub', created: '2026-01-01T00:00:00Z' },
    ]);
    const listed = harness.logs.find((line) => line.msg === 'kvm2 domains listed');
    expect(listed).toMatchObject({ hosts: 2, managed: 2 });
  });

  it('costs one RPC per domain plus two per host: the listing, one bulk state call, one mark read each', async () => {
    const { harness, h1, h2 } = twoHosts();
    for (const name of ['p1', 'p2', 'p3']) h1.addDomain({ name, state: DomainState.Running, metadata: mark(name) });
    h1.addDomain({ name: 'foreign', state: DomainState.Shutoff });
    await harness.provider.listByTag(managedTag);
    for (const name of ['p1', 'p2', 'p3', 'foreign']) {
      expect(h1.calls.filter((call) => call.method === 'domainGetMetadata' && call.subject === name)).toHaveLength(1);
    }
    expect(h1.count('connectListAllDomains')).toBe(1);
    expect(h1.count('connectGetAllDomainStats')).toBe(1);
    expect(h1.calls).toHaveLength(2 + 4);
    expect(h2.calls).toHaveLength(1); // no domains: the listing only
  });

  it('a failing bulk state call fails the sweep, transiently, instead of skipping every domain', async () => {
    const { harness, h1 } = twoHosts();
    h1.addDomain({ name: 'good', state: DomainState.Running, metadata: mark('g') });
    h1.failOnce('connectGetAllDomainStats', 'ErrInternalError');
    await expect(harness.provider.listByTag(managedTag)).rejects.toSatisfy((err) => errorClassOf(err) === 'transient');
  });

  it.each([
    [
      'corrupt metadata',
      (h: FakeHypervisor) =>
        h.addDomain({ name: 'bad', state: DomainState.Running, metadata: { [metadataURI]: '<instance><managed>yes</managed></instance>' } }),
    ],
    [
      'a domain vanishing mid-sweep',
      (h: FakeHypervisor) => {
        h.addDomain({ name: 'bad', state: DomainState.Running, metadata: mark('u') });
        h.failOnce('domainGetMetadata', 'ErrNoDomain', 'bad');
      },
    ],
    [
      'a domain gone between the listing and the state call',
      (h: FakeHypervisor) => {
        h.addDomain({ name: 'bad', state: DomainState.Running, metadata: mark('u') });
        const gate = h.gate('connectGetAllDomainStats');
        void gate.arrived.then(() => {
          h.domains.delete('bad');
          gate.release();
        });
      },
    ],
  ])('skips a domain it cannot read (%s) with a log line, keeping the rest', async (_label, arrange) => {
    const { harness, h1 } = twoHosts();
    h1.addDomain({ name: 'good', state: DomainState.Shutoff, metadata: mark('g') });
    arrange(h1);
    const instances = await harness.provider.listByTag(managedTag);
    expect(instances.map((instance) => instance.name)).toEqual(['good']);
    expect(harness.logs.some((line) => line.name === 'bad' && String(line.msg).includes('skipped a domain it could not read'))).toBe(true);
  });

  it('an unreachable host fails the whole sweep, transiently', async () => {
    const { harness, h1 } = twoHosts();
    h1.addDomain({ name: 'good', state: DomainState.Shutoff, metadata: mark('g') });
    harness.backend.unreachable.add('h2');
    await expect(harness.provider.listByTag(managedTag)).rejects.toSatisfy((err) => errorClassOf(err) === 'transient');
    expect(harness.logs.some((line) => line.msg === 'kvm2 backend call failed' && line.op === 'listByTag')).toBe(true);
  });

  it('a connection dying mid-sweep fails it rather than returning a partial list', async () => {
    const { harness, h1 } = twoHosts();
    h1.addDomain({ name: 'a', state: DomainState.Shutoff, metadata: mark('a') });
    h1.addDomain({ name: 'b', state: DomainState.Shutoff, metadata: mark('b') });
    h1.failOnce('domainGetMetadata', new ConnectionKilledError('keepalive unanswered'), 'b');
    await expect(harness.provider.listByTag(managedTag)).rejects.toSatisfy((err) => errorClassOf(err) === 'transient');
  });

  it("any tag but kvm2's managed one has no members", async () => {
    const { harness, h1 } = twoHosts();
    h1.addDomain({ name: 'a', state: DomainState.Shutoff, metadata: mark('a') });
    expect(await harness.provider.listByTag('something-else')).toEqual([]);
  });
});
