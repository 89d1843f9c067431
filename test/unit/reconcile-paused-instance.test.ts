// An instance an admin paused on its host (to debug it, say) is never resumed, replaced or deleted
// by the reconciler: the Proxy shows why (the provider's detail, with the command that resumes it)
// and is looked at again until the instance runs, then converges as usual.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.useRealTimers();
});

const detail = 'domain proxy-alpha is DomainPaused on host h1; nothing here resumes or replaces it; resume it on the host with virsh resume proxy-alpha';

describe('a paused instance', () => {
  it('is left alone, with a condition saying so, until it is resumed; then the Proxy converges', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider], provisioningPollMs: 10_000 });
    await harness.proxies.create(managedProxy('alpha'));
    await vi.advanceTimersByTimeAsync(0);
    const providerID = `fake/${instanceName('alpha')}`;
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');

    const instance = provider.instances.get(providerID);
    if (!instance) throw new Error('no instance');
    instance.detail = detail;
    provider.setState(providerID, 'Paused');
    harness.reconciler.enqueue('alpha');
    // Several passes: each one only looks.
    await vi.advanceTimersByTimeAsync(45_000);

    expect(provider.callsOf('get').length).toBeGreaterThanOrEqual(4);
    expect(provider.callsOf('delete')).toHaveLength(0);
    expect(provider.callsOf('create')).toHaveLength(1);
    expect(provider.instances.get(providerID)?.state).toBe('Paused');
    const status = (await harness.proxies.get('alpha')).status;
    expect(status.providerID).toBe(providerID);
    expect(status.conditions.find((c) => c.type === 'Provisioned')).toMatchObject({ status: 'False', reason: 'InstancePaused', message: detail });
    const paused = (await harness.proxies.events('alpha')).filter((event) => event.reason === 'InstancePaused');
    expect(paused).toHaveLength(1);
    expect(paused[0]).toMatchObject({ type: 'Warning', message: detail, count: 1 });
    expect(harness.reconciler.scheduledAt('alpha')).toBeDefined();

    provider.setState(providerID, 'Running');
    await vi.advanceTimersByTimeAsync(10_000);
    expect((await harness.proxies.get('alpha')).status).toMatchObject({ phase: 'Running', providerID });
    expect((await harness.proxies.get('alpha')).status.conditions.find((c) => c.type === 'Provisioned')).toMatchObject({
      status: 'True',
      reason: 'InstanceRunning',
    });
    expect(provider.callsOf('delete')).toHaveLength(0);
    expect(provider.callsOf('create')).toHaveLength(1);
  });

  it('says it is paused in generic words when the provider gives no detail', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider] });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    const providerID = `fake/${instanceName('alpha')}`;
    provider.setState(providerID, 'Paused');
    harness.reconciler.enqueue('alpha');
    await harness.settle();
    expect((await harness.proxies.get('alpha')).status.conditions.find((c) => c.type === 'Provisioned')).toMatchObject({
      reason: 'InstancePaused',
      message: `instance ${providerID} is paused on its host; nothing here resumes or replaces it until it runs again`,
    });
    expect(provider.callsOf('delete')).toHaveLength(0);
  });
});
