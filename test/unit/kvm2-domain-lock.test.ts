// Create and Delete of one domain name are serialised on a per-name lock, so a Delete never
// interleaves with a Create's steps and two Deletes (GC and the reconciler) never race on destroy
// and undefine. Get and ListByTag take no lock; other names are not held up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState } from '@/server/libvirt';
import { managedTag } from '@/server/providers/contract';
import { errorClassOf } from '@/server/providers/errors';
import { nextTurn } from '@/test/support/wait';
import { makeHarness, providerIdOf, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const domain = 'proxy-lock';
const id = providerIdOf('h1', domain);

function cachedHarness() {
  const harness = makeHarness({ mirror });
  harness.seedCache();
  return harness;
}

describe('the per-name lock', () => {
  it('a Delete issued mid-Create waits for the Create to finish, then removes everything', async () => {
    const harness = cachedHarness();
    const gate = harness.hypervisor.gate('domainCreate', domain);
    const create = harness.provider.create(harness.request(domain));
    await gate.arrived;
    const callsBefore = harness.hypervisor.calls.length;
    const deletion = harness.provider.delete(id);
    // The provider over the in-memory fake is promise callbacks only: one turn runs every call an
    // unlocked Delete would make.
    await nextTurn();
    expect(harness.hypervisor.calls.length).toBe(callsBefore);
    gate.release();
    await create;
    await deletion;
    expect(harness.hypervisor.domains.has(domain)).toBe(false);
    expect(harness.hypervisor.volumeNames()).toEqual([harness.imageVolumes.base, harness.imageVolumes.marker]);
    const methods = harness.hypervisor.calls.slice(callsBefore).map((call) => call.method);
    expect(methods.indexOf('domainGetState')).toBeLessThan(methods.indexOf('domainDestroy'));
  });

  it('Get and ListByTag do not wait for it', async () => {
    const harness = cachedHarness();
    const gate = harness.hypervisor.gate('domainCreate', domain);
    const create = harness.provider.create(harness.request(domain));
    await gate.arrived;
    expect(await harness.provider.get(id)).toMatchObject({ state: 'Stopped', uid: `uid-${domain}` });
    expect((await harness.provider.listByTag(managedTag)).map((instance) => instance.name)).toEqual([domain]);
    gate.release();
    await create;
  });

  it('another name is not held up', async () => {
    const harness = cachedHarness();
    const gate = harness.hypervisor.gate('domainCreate', domain);
    const create = harness.provider.create(harness.request(domain));
    await gate.arrived;
    await harness.provider.create(harness.request('proxy-other'));
    expect(harness.hypervisor.domains.get('proxy-other')?.state).toBe(DomainState.Running);
    gate.release();
    await create;
  });

  it('two concurrent Deletes run one after the other: one destroy, both succeed', async () => {
    const harness = cachedHarness();
    await harness.provider.create(harness.request(domain));
    await Promise.all([harness.provider.delete(id), harness.provider.delete(id)]);
    expect(harness.hypervisor.count('domainDestroy')).toBe(1);
    expect(harness.hypervisor.count('domainUndefineFlags')).toBe(1);
    expect(harness.hypervisor.domains.has(domain)).toBe(false);
  });

  it('a Create waiting for the lock gives up with its signal, transiently, and never runs', async () => {
    const harness = cachedHarness();
    const gate = harness.hypervisor.gate('domainCreate', domain);
    const first = harness.provider.create(harness.request(domain));
    await gate.arrived;
    const controller = new AbortController();
    const second = harness.provider.create(harness.request(domain), { signal: controller.signal }).catch((err: unknown) => err);
    controller.abort(new Error('reconcile timed out'));
    expect(errorClassOf(await second)).toBe('transient');
    gate.release();
    await first;
    expect(harness.hypervisor.count('domainLookupByName')).toBe(1);
  });
});
