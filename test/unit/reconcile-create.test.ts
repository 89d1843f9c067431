import { afterEach, describe, expect, it, vi } from 'vitest';
import { instanceName, specHash } from '@/server/control/names';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.useRealTimers();
});

describe('reconciling a new Managed proxy', () => {
  it('creates the instance under the deterministic name and reaches Running with its IP', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider] });
    const created = await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();

    const [call] = provider.callsOf('create');
    expect(call?.subject).toBe(instanceName('alpha'));
    const instance = [...provider.instances.values()][0];
    expect(instance?.uid).toBe(created.uid);
    expect(instance?.placement).toEqual({ zone: 'host-a', machineType: 'small', image: 'debian-13' });
    expect(instance?.cloudInitBytes).toBe(Buffer.byteLength('#cloud-config\npackages: [squid]\n'));

    const view = await harness.proxies.get('alpha');
    expect(view.status.phase).toBe('Running');
    expect(view.status.ip).toBe(instance?.ip);
    expect(view.status.providerID).toBe(`fake/${instanceName('alpha')}`);
    expect(view.status.host).toBe('host-a');
    expect(view.status.observedSpecHash).toBe(view.status.specHash);
    expect(view.status.conditions.find((c) => c.type === 'Provisioned')).toMatchObject({ status: 'True', reason: 'InstanceRunning' });
    const reasons = (await harness.proxies.events('alpha')).map((event) => `${event.reason}:${event.message}`);
    expect(reasons).toContain('PhaseChanged:Pending → Provisioning');
    expect(reasons).toContain('PhaseChanged:Provisioning → Running');
  });

  it('stays Provisioning and polls until the instance runs with an address', async () => {
    vi.useFakeTimers();
    const provider = new FakeProvider({ name: 'fake-1', initialState: 'Provisioning' });
    harness = await controlPlane({ providers: [provider], provisioningPollMs: 10_000 });
    await harness.proxies.create(managedProxy('alpha'));
    await vi.advanceTimersByTimeAsync(0);
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Provisioning');
    expect((await harness.proxies.get('alpha')).status.conditions[0]).toMatchObject({ status: 'False', reason: 'InstanceProvisioning' });

    await vi.advanceTimersByTimeAsync(10_000);
    expect(provider.callsOf('get')).toHaveLength(1);
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Provisioning');

    provider.setState(`fake/${instanceName('alpha')}`, 'Running');
    await vi.advanceTimersByTimeAsync(10_000);
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');
    expect(provider.callsOf('create')).toHaveLength(1);
  });

  it('adopts the instance an interrupted Create left behind instead of making a second one', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider] });
    await harness.pause();
    const created = await harness.proxies.create(managedProxy('alpha'));
    const record = (await harness.store.proxies.get('alpha'))!;
    // What a kill right after the provider made the instance leaves: the intent, no providerID.
    await harness.store.proxies.writeStatus(created.uid, { ...record.status, phase: 'Provisioning', instanceSpecHash: specHash(record.spec) });
    provider.put({
      providerID: `fake/${instanceName('alpha')}`,
      name: instanceName('alpha'),
      uid: created.uid,
      state: 'Running',
      ip: '198.51.100.9',
      managed: true,
    });

    await harness.restart();
    await harness.settle();
    expect(provider.instances.size).toBe(1);
    expect((await harness.proxies.get('alpha')).status).toMatchObject({ phase: 'Running', ip: '198.51.100.9' });
  });

  it('serves a Static proxy at its address without calling any provider', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider] });
    await harness.proxies.create({ name: 'edge', mode: 'Static', address: '192.0.2.10', port: 8080 });
    await harness.settle();
    expect((await harness.proxies.get('edge')).status).toMatchObject({ phase: 'Running', ip: '192.0.2.10' });
    expect(provider.calls).toEqual([]);
  });

  it('waits, not fails, while its provider is not running, and proceeds once it is', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [] });
    await harness.providers.replace({ handles: new Map(), unavailable: new Map([['fake-1', 'type fake has no implementation']]), version: 'v1' });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    const waiting = (await harness.proxies.get('alpha')).status;
    expect(waiting.phase).toBe('Pending');
    expect(waiting.conditions[0]).toMatchObject({ status: 'False', reason: 'ProviderUnavailable', message: 'type fake has no implementation' });

    await harness.providers.replace({ handles: new Map([['fake-1', { provider }]]), unavailable: new Map(), version: 'v2' });
    harness.reconciler.enqueue('alpha');
    await harness.settle();
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');
  });
});
