// Delete is idempotent: it removes the domain (destroy, then undefine with managed save, snapshot
// metadata and NVRAM) and the overlay and seed by name, even with no domain; the cached base stays.
// A domain or volume already gone, a stopped domain, a missing pool and an unconfigured host are
// all success.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState, DomainUndefineFlags } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { makeHarness, providerIdOf, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const domain = 'proxy-del';
const id = providerIdOf('h1', domain);

async function created() {
  const harness = makeHarness({ mirror });
  harness.seedCache();
  await harness.provider.create(harness.request(domain));
  harness.hypervisor.resetCalls();
  return harness;
}

describe('Delete', () => {
  it('removes a running UEFI domain with its NVRAM, its overlay and its seed; the cached base stays', async () => {
    const harness = await created();
    await harness.provider.delete(id);
    expect(harness.hypervisor.domains.has(domain)).toBe(false);
    expect(harness.hypervisor.volumeNames()).toEqual([harness.imageVolumes.base, harness.imageVolumes.marker]);
    expect(harness.hypervisor.calls.map((call) => call.method)).toEqual([
      'domainLookupByName',
      'domainDestroy',
      'domainUndefineFlags',
      'storagePoolLookupByName',
      'storageVolLookupByName',
      'storageVolDelete',
      'storageVolLookupByName',
      'storageVolDelete',
    ]);
  });

  it('undefines with managed save, snapshot metadata and NVRAM', async () => {
    const harness = await created();
    let flags: number | undefined;
    const api = await harness.backend.pooled('h1');
    const undefine = api.domainUndefineFlags.bind(api);
    api.domainUndefineFlags = (options) => {
      flags = options.flags;
      return undefine(options);
    };
    await harness.provider.delete(id);
    expect(flags).toBe(DomainUndefineFlags.ManagedSave | DomainUndefineFlags.SnapshotsMetadata | DomainUndefineFlags.Nvram);
  });

  it('a second Delete succeeds and changes nothing', async () => {
    const harness = await created();
    await harness.provider.delete(id);
    const volumes = harness.hypervisor.volumeNames();
    await harness.provider.delete(id);
    expect(harness.hypervisor.volumeNames()).toEqual(volumes);
  });

  it('a stopped domain is fine: destroy answering ErrOperationInvalid is success', async () => {
    const harness = await created();
    harness.hypervisor.domains.get(domain)!.state = DomainState.Shutoff;
    await harness.provider.delete(id);
    expect(harness.hypervisor.domains.has(domain)).toBe(false);
  });

  it('removes the overlay and seed by name when there is no domain (a Create cut off before define)', async () => {
    const harness = makeHarness({ mirror });
    harness.hypervisor.addVolume({ name: `${domain}.qcow2` });
    harness.hypervisor.addVolume({ name: `${domain}-seed.iso` });
    harness.hypervisor.addVolume({ name: 'someone-elses.qcow2' });
    await harness.provider.delete(id);
    expect(harness.hypervisor.volumeNames()).toEqual(['someone-elses.qcow2']);
  });

  it('a domain vanishing between the lookup and the undefine is success', async () => {
    const harness = await created();
    harness.hypervisor.failOnce('domainUndefineFlags', 'ErrNoDomain');
    await harness.provider.delete(id);
    expect(harness.hypervisor.volumeNames()).not.toContain(`${domain}.qcow2`);
  });

  it('a missing pool means nothing to clean', async () => {
    const harness = await created();
    harness.hypervisor.pools.delete('default');
    await expect(harness.provider.delete(id)).resolves.toBeUndefined();
    expect(harness.hypervisor.domains.has(domain)).toBe(false);
  });

  it('a providerID naming a host no longer configured is a logged no-op success, with no dial', async () => {
    const harness = await created();
    await expect(harness.provider.delete(providerIdOf('retired', domain))).resolves.toBeUndefined();
    expect(harness.backend.pooledDials).toBe(1);
    expect(harness.hypervisor.calls).toEqual([]);
    expect(harness.logs.some((line) => line.msg.includes('not configured') && line.host === 'retired')).toBe(true);
  });

  it('a malformed providerID is permanent', async () => {
    const harness = makeHarness({ mirror });
    await expect(harness.provider.delete('domains/x')).rejects.toSatisfy((err) => errorClassOf(err) === 'permanent');
  });

  it('libvirt failing the destroy for another reason is transient, and the retry finishes the job', async () => {
    const harness = await created();
    harness.hypervisor.failOnce('domainDestroy', 'ErrInternalError');
    await expect(harness.provider.delete(id)).rejects.toSatisfy((err) => errorClassOf(err) === 'transient');
    await harness.provider.delete(id);
    expect(harness.hypervisor.domains.has(domain)).toBe(false);
  });

  it('an unreachable host is transient', async () => {
    const harness = await created();
    harness.backend.unreachable.add('h1');
    await harness.backend.closeAll();
    await expect(harness.provider.delete(id)).rejects.toSatisfy((err) => errorClassOf(err) === 'transient');
  });
});
