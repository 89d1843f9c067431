import { afterEach, describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import { ErrPermanent } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy, updateOf } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.useRealTimers();
});

const unknownMachineType = new ErrPermanent('placement.machineType "huge" is not in kvm2.machineTypes');

async function failedProxy(provider: FakeProvider) {
  harness = await controlPlane({ providers: [provider] });
  const spec = managedProxy('alpha', { placement: { zone: 'host-a', machineType: 'huge', image: 'debian-13' } });
  await harness.proxies.create(spec);
  await harness.settle();
  expect((await harness.proxies.get('alpha')).status).toMatchObject({ phase: 'Failed', lastError: { message: unknownMachineType.message } });
  return spec;
}

describe('the Failed latch', () => {
  it('holds through resyncs, re-queues and restarts while the spec and the config stay the same', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'fake-1' }).failAlways('create', unknownMachineType);
    await failedProxy(provider);
    await vi.advanceTimersByTimeAsync(600_000);
    harness!.reconciler.enqueue('alpha');
    await harness!.restart();
    await vi.advanceTimersByTimeAsync(0);
    expect(provider.callsOf('create')).toHaveLength(1);
    expect((await harness!.proxies.get('alpha')).status.phase).toBe('Failed');
  });

  it('is released by a spec change: leftovers of the failed attempt are removed by uid, then the new spec is created', async () => {
    const provider = new FakeProvider({ name: 'fake-1' }).failNext('create', unknownMachineType);
    const spec = await failedProxy(provider);
    // A failing Create may leave something behind (a defined domain), marked with the uid.
    const uid = (await harness!.proxies.get('alpha')).uid;
    provider.put({ providerID: `fake/${instanceName('alpha')}`, name: instanceName('alpha'), uid, state: 'Stopped', managed: true });

    await harness!.proxies.update('alpha', updateOf(spec, { placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' } }));
    await harness!.settle();

    const methods = provider.calls.map((call) => call.method);
    expect(methods).toEqual(['create', 'listByTag', 'delete', 'create']);
    const view = await harness!.proxies.get('alpha');
    expect(view.status.phase).toBe('Running');
    expect(view.status.lastError).toBeUndefined();
    expect(provider.instances.get(`fake/${instanceName('alpha')}`)?.placement?.machineType).toBe('small');
  });

  it('is released by a new providers config (the admin fixed the catalogue instead of the spec)', async () => {
    const provider = new FakeProvider({ name: 'fake-1' }).failNext('create', unknownMachineType);
    await failedProxy(provider);
    await harness!.providers.replace({ handles: new Map([['fake-1', { provider }]]), unavailable: new Map(), version: 'v2' });
    harness!.reconciler.enqueue('alpha');
    await harness!.settle();
    expect(provider.callsOf('create')).toHaveLength(2);
    expect((await harness!.proxies.get('alpha')).status.phase).toBe('Running');
  });
});
