// Boot capture's hooks: the reconciler tells the runtime when Create has started a Proxy's VM
// (once per start, with the Proxy's name and the new providerID), so its console opens in time
// for the boot log; passes that only observe the instance do not, but say what they observed (a
// VM there and not stopped, or one they could not read just now), so capture resumes after a restart.
import { afterEach, describe, expect, it } from 'vitest';
import { instanceName } from '@/server/control/names';
import { ErrTransient } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('boot capture hook', () => {
  it('is told once when Create starts the VM, not on later passes', async () => {
    const provider = new FakeProvider({ name: 'fake-1', bootMs: 60_000 });
    const started: Array<[string, string]> = [];
    harness = await controlPlane({ providers: [provider], provisioningPollMs: 5, onInstanceStarted: (proxy, providerID) => started.push([proxy, providerID]) });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    expect(started).toEqual([['alpha', `fake/${instanceName('alpha')}`]]);
    // Still Provisioning: the reconciler polls it, observing only. Wait for later passes to run.
    const gets = provider.callsOf('get').length;
    await expect.poll(() => provider.callsOf('get').length, { message: 'two more polling passes' }).toBeGreaterThanOrEqual(gets + 2);
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Provisioning');
    expect(started).toHaveLength(1);
  });

  it("is told when a deleted Proxy's record is gone (its console is forgotten then)", async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const removed: string[] = [];
    harness = await controlPlane({ providers: [provider], onRemoved: (proxy) => removed.push(proxy) });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    expect(removed).toEqual([]);
    await harness.proxies.delete('alpha');
    await expect.poll(() => removed).toEqual(['alpha']);
    expect(provider.callsOf('delete')).toHaveLength(1);
  });

  it('is told again when a stopped VM is replaced and the new one started', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const started: string[] = [];
    harness = await controlPlane({ providers: [provider], onInstanceStarted: (_proxy, providerID) => started.push(providerID) });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    provider.setState(`fake/${instanceName('alpha')}`, 'Stopped');
    harness.reconciler.enqueue('alpha');
    await expect.poll(() => started.length).toBe(2);
    expect(started).toEqual([`fake/${instanceName('alpha')}`, `fake/${instanceName('alpha')}`]);
  });

  it('is told of the VM by every pass that finds it there, from the first pass after a restart; not of a stopped one', async () => {
    const provider = new FakeProvider({ name: 'fake-1', initialState: 'Provisioning' });
    const observed: Array<[string, string]> = [];
    harness = await controlPlane({ providers: [provider], onInstanceObserved: (proxy, providerID) => observed.push([proxy, providerID]) });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    const providerID = `fake/${instanceName('alpha')}`;
    expect(observed).toEqual([['alpha', providerID]]);
    await harness.restart();
    await harness.settle();
    expect(observed).toEqual([
      ['alpha', providerID],
      ['alpha', providerID],
    ]);
    provider.setState(providerID, 'Stopped');
    const stopped = observed.length;
    harness.reconciler.enqueue('alpha');
    // The stopped VM is deleted, not reported; its replacement is (Create's pass records it).
    await expect.poll(() => provider.callsOf('delete').length).toBe(1);
    await harness.settle();
    expect(observed.slice(stopped)).toEqual([['alpha', providerID]]);
  });

  it('is told of a VM an interrupted Create had already started, when the next Create adopts it', async () => {
    const provider = new FakeProvider({ name: 'fake-1', initialState: 'Provisioning' });
    const observed: string[] = [];
    harness = await controlPlane({ providers: [provider], onInstanceObserved: (_proxy, providerID) => observed.push(providerID) });
    // The VM exists and runs, but the store never learnt its providerID (a restart mid-Create).
    await harness.pause();
    await harness.proxies.create(managedProxy('alpha'));
    const { uid } = await harness.proxies.get('alpha');
    provider.put({ providerID: `fake/${instanceName('alpha')}`, name: instanceName('alpha'), uid, managed: true, state: 'Provisioning' });
    await harness.restart();
    await harness.settle();
    expect(provider.callsOf('create')).toHaveLength(1);
    expect(observed).toEqual([`fake/${instanceName('alpha')}`]);
  });

  it('is told of a VM it cannot read just now (running, no address source answers while it boots)', async () => {
    const provider = new FakeProvider({ name: 'fake-1', initialState: 'Provisioning' });
    const observed: string[] = [];
    harness = await controlPlane({ providers: [provider], onInstanceObserved: (_proxy, providerID) => observed.push(providerID) });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    provider.failAlways('get', new ErrTransient('domain is running but every address source failed'));
    await harness.restart();
    await harness.settle();
    expect((await harness.proxies.get('alpha')).status.lastError?.class).toBe('transient');
    expect(observed).toEqual([`fake/${instanceName('alpha')}`, `fake/${instanceName('alpha')}`]);
  });
});
