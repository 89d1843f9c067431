// Get: libvirt's states mapped to the contract's, the address from the guest agent then ARP (the
// first IPv4 that is not loopback, link-local or unspecified), a source that errors meaning "no
// IP yet", NotFound for a missing domain, permanent for a host no longer configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainInterfaceAddressesSource as Source, DomainState, IpAddrType, type DomainInterface } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { buildMetadataXML, metadataURI } from '@/server/providers/kvm2/metadata';
import type { FakeDomain } from '@/test/fakes/fake-libvirt';
import { makeHarness, providerIdOf, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const domain = 'proxy-get';
const id = providerIdOf('h1', domain);
const marked = { [metadataURI]: buildMetadataXML({ managed: true, uid: 'u-1', created: '2026-02-03T04:05:06Z' }) };

const iface = (...addrs: Array<[string, number?]>): DomainInterface => ({
  name: 'eth0',
  hwaddr: '52:54:00:00:00:01',
  addrs: addrs.map(([addr, type]) => ({ addr, type: type ?? IpAddrType.IPv4, prefix: 24 })),
});

function harnessWith(options: Partial<Omit<FakeDomain, 'metadata'>>) {
  const harness = makeHarness({ mirror });
  harness.hypervisor.addDomain({ name: domain, metadata: marked, ...options });
  return harness;
}

describe('Get maps libvirt states', () => {
  it.each([
    [DomainState.Running, 'Running', '10.1.2.3'],
    [DomainState.Blocked, 'Running', '10.1.2.3'],
    [DomainState.NoState, 'Provisioning', undefined],
    [DomainState.Shutdown, 'Stopped', undefined],
    [DomainState.Shutoff, 'Stopped', undefined],
    [DomainState.Crashed, 'Stopped', undefined],
  ])('state %i reads %s', async (state, expected, ip) => {
    const harness = harnessWith({ state, addresses: { [Source.Agent]: [iface(['10.1.2.3'])] } });
    const instance = await harness.provider.get(id);
    expect(instance).toEqual({ providerID: id, host: 'h1', name: domain, state: expected, ...(ip ? { ip } : {}), uid: 'u-1', created: '2026-02-03T04:05:06Z' });
  });

  it.each([
    [DomainState.Paused, 'DomainPaused', 'virsh resume proxy-get'],
    [DomainState.PmSuspended, 'DomainPmsuspended', 'virsh dompmwakeup proxy-get'],
  ])('state %i (an admin paused it) reads Paused, saying so and how to resume it', async (state, name, command) => {
    const harness = harnessWith({ state });
    expect(await harness.provider.get(id)).toEqual({
      providerID: id,
      host: 'h1',
      name: domain,
      state: 'Paused',
      uid: 'u-1',
      created: '2026-02-03T04:05:06Z',
      detail: `domain proxy-get is ${name} on host h1; nothing here resumes or replaces it; resume it on the host with ${command}`,
    });
  });

  it('an active domain with no address yet is Provisioning', async () => {
    const harness = harnessWith({ state: DomainState.Running });
    expect(await harness.provider.get(id)).toMatchObject({ state: 'Provisioning' });
    expect(harness.logs.some((line) => line.msg === 'no addresses from source' && line.source === 'agent')).toBe(true);
  });

  it('makes at most five RPCs', async () => {
    const harness = harnessWith({ state: DomainState.Running });
    harness.hypervisor.resetCalls();
    await harness.provider.get(id);
    expect(harness.hypervisor.calls.length).toBeLessThanOrEqual(5);
  });
});

describe('Get finds the address', () => {
  it('skips loopback, link-local, unspecified and IPv6 addresses the agent reports', async () => {
    const lo: DomainInterface = { ...iface(['127.0.0.1'], ['::1', IpAddrType.IPv6]), name: 'lo' };
    const eth = iface(['0.0.0.0'], ['169.254.10.1'], ['fe80::1', IpAddrType.IPv6], ['192.168.1.73']);
    const harness = harnessWith({ state: DomainState.Running, addresses: { [Source.Agent]: [lo, eth] } });
    expect(await harness.provider.get(id)).toMatchObject({ state: 'Running', ip: '192.168.1.73' });
    expect(harness.hypervisor.count('domainInterfaceAddresses')).toBe(1);
  });

  it('falls back to ARP while the agent is not up', async () => {
    const harness = harnessWith({ state: DomainState.Running, addresses: { [Source.Arp]: [iface(['192.168.1.80'])] } });
    expect(await harness.provider.get(id)).toMatchObject({ state: 'Running', ip: '192.168.1.80' });
  });

  it('falls back to ARP when the agent answers with nothing usable', async () => {
    const harness = harnessWith({
      state: DomainState.Running,
      addresses: { [Source.Agent]: [iface(['127.0.0.1'])], [Source.Arp]: [iface(['192.168.1.81'])] },
    });
    expect(await harness.provider.get(id)).toMatchObject({ ip: '192.168.1.81' });
  });

  it('an ARP source that errors while the agent answers nothing still means no IP yet', async () => {
    const harness = harnessWith({ state: DomainState.Running, addresses: { [Source.Agent]: [], [Source.Arp]: 'ErrOperationFailed' } });
    expect(await harness.provider.get(id)).toMatchObject({ state: 'Provisioning' });
  });

  it('every source erroring on an active domain is transient', async () => {
    const harness = harnessWith({ state: DomainState.Running, addresses: { [Source.Arp]: 'ErrOperationFailed' } });
    await expect(harness.provider.get(id)).rejects.toSatisfy((err) => errorClassOf(err) === 'transient');
  });
});

describe('Get errors', () => {
  it('a missing domain is NotFound', async () => {
    const harness = makeHarness({ mirror });
    await expect(harness.provider.get(id)).rejects.toSatisfy((err) => errorClassOf(err) === 'notFound');
    expect(harness.logs.some((line) => line.msg === 'kvm2 domain not found')).toBe(true);
  });

  it('a host no longer configured is permanent, with no dial', async () => {
    const harness = makeHarness({ mirror });
    const failure = await harness.provider.get(providerIdOf('retired', domain)).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(errorClassOf(failure)).toBe('permanent');
    expect(failure?.message).toContain('"retired"');
    expect(harness.backend.pooledDials).toBe(0);
  });

  it('a malformed providerID is permanent', async () => {
    const harness = makeHarness({ mirror });
    await expect(harness.provider.get('hosts/h1/vms/x')).rejects.toSatisfy((err) => errorClassOf(err) === 'permanent');
  });

  it('an unreachable host is transient', async () => {
    const harness = makeHarness({ mirror });
    harness.backend.unreachable.add('h1');
    await expect(harness.provider.get(id)).rejects.toSatisfy((err) => errorClassOf(err) === 'transient');
  });

  it('a domain without the kvm2 mark still reads, with no uid', async () => {
    const harness = makeHarness({ mirror });
    harness.hypervisor.addDomain({ name: domain, state: DomainState.Shutoff });
    expect(await harness.provider.get(id)).toEqual({ providerID: id, host: 'h1', name: domain, state: 'Stopped' });
  });
});
