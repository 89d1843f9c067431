import { afterEach, describe, expect, it } from 'vitest';
import type { Target } from '@/server/providers/contract';
import type { HostCapacity, HostCapacityReader, PlacementPolicy } from '@/server/providers/host-capacity';
import { controlPlane, type Harness, managedProxy, updateOf } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

const gib = 1024 ** 3;

/** A fake provider with several hosts whose capacity the test sets. */
class MultiHostProvider extends FakeProvider {
  readonly measured: Record<string, HostCapacity>;
  readonly capacity: HostCapacityReader;

  constructor(hosts: string[], policy: PlacementPolicy = 'spread') {
    super({
      name: 'fake-1',
      targets: hosts.map((name): Target => ({ name, ready: true, reason: 'Reachable', message: '', details: {}, latencyMs: 1, checkedAt: '' })),
    });
    this.measured = Object.fromEntries(
      hosts.map((host) => [host, { host, pool: 'default', poolRunning: true, poolAvailableBytes: 180 * gib, freeMemoryBytes: 4 * gib, managedInstances: 0 }]),
    );
    this.capacity = {
      policy,
      hosts: () => hosts,
      needs: () => ({ diskBytes: 10 * gib, memoryBytes: gib }),
      measure: async (host) => ({ ...this.measured[host]! }),
    };
  }
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(provider: MultiHostProvider): Promise<Harness> {
  harness = await controlPlane({ providers: [provider] });
  await harness.store.health.record({ provider: provider.name, targets: provider.targets, nowMs: Date.now() });
  return harness;
}

const autoProxy = (name: string) => managedProxy(name, { placement: { machineType: 'small', image: 'debian-13' } });

describe('automatic placement of a Proxy without placement.zone', () => {
  it('creates on the host with the fewest managed VMs and records the choice in status and events', async () => {
    const provider = new MultiHostProvider(['lab1', 'lab2']);
    provider.measured.lab1!.managedInstances = 3;
    provider.measured.lab2!.managedInstances = 2;
    const h = await start(provider);
    await h.proxies.create(autoProxy('alpha'));
    await h.settle();

    expect([...provider.instances.values()][0]?.placement?.zone).toBe('lab2');
    const view = await h.proxies.get('alpha');
    expect(view.status.phase).toBe('Running');
    expect(view.status.chosenPlacement).toMatchObject({ zone: 'lab2', reason: 'lab2: 180 GiB free, 4 GiB memory free, 2 VMs (spread)' });
    expect(view.placement?.zone).toBeUndefined();
    const events = (await h.proxies.events('alpha')).map((event) => `${event.reason}:${event.message}`);
    expect(events).toContain('Placed:placed on lab2: 180 GiB free, 4 GiB memory free, 2 VMs (spread)');
  });

  it('keeps the chosen host across a restart and a replacement, though another host now fits better', async () => {
    const provider = new MultiHostProvider(['lab1', 'lab2']);
    provider.measured.lab1!.managedInstances = 1;
    const h = await start(provider);
    const created = autoProxy('alpha');
    await h.proxies.create(created);
    await h.settle();
    expect((await h.proxies.get('alpha')).status.chosenPlacement?.zone).toBe('lab2');

    provider.measured.lab2!.managedInstances = 9;
    await h.restart();
    await h.proxies.update('alpha', updateOf(created, { placement: { machineType: 'large', image: 'debian-13' } }));
    await h.settle();

    expect(provider.callsOf('delete')).toHaveLength(1);
    const instance = [...provider.instances.values()][0];
    expect(instance?.placement).toEqual({ zone: 'lab2', machineType: 'large', image: 'debian-13' });
    expect((await h.proxies.events('alpha')).filter((event) => event.reason === 'Placed')).toHaveLength(1);
  });

  it('waits, not Failed, naming why each host was refused, and places once a host fits', async () => {
    const provider = new MultiHostProvider(['lab1', 'lab2']);
    provider.measured.lab1!.poolRunning = false;
    provider.targets = [provider.targets[0]!, { ...provider.targets[1]!, ready: false, reason: 'Unreachable', message: 'connection refused' }];
    const h = await start(provider);
    await h.proxies.create(autoProxy('alpha'));
    await h.settle();

    const waiting = await h.proxies.get('alpha');
    expect(waiting.status.phase).not.toBe('Failed');
    expect(waiting.status.conditions.find((c) => c.type === 'Provisioned')).toMatchObject({
      status: 'False',
      reason: 'NoHostFits',
      message: 'no host fits: lab1: storage pool "default" is not running; lab2: not healthy: Unreachable (connection refused)',
    });
    expect(h.reconciler.scheduledAt('alpha')).toBeDefined();
    expect(provider.callsOf('create')).toEqual([]);

    provider.measured.lab1!.poolRunning = true;
    h.reconciler.enqueue('alpha');
    await h.settle();
    expect((await h.proxies.get('alpha')).status).toMatchObject({ phase: 'Running', chosenPlacement: { zone: 'lab1' } });
  });

  it('leaves an omitted zone to a single-host provider and an explicit zone as written', async () => {
    const single = new MultiHostProvider(['only']);
    const h = await start(single);
    await h.proxies.create(autoProxy('alpha'));
    await h.proxies.create(managedProxy('beta', { placement: { zone: 'only', machineType: 'small', image: 'debian-13' } }));
    await h.settle();
    const zones = [...single.instances.values()].map((instance) => instance.placement?.zone);
    expect(zones).toEqual([undefined, 'only']);
    expect((await h.proxies.get('alpha')).status.chosenPlacement).toBeUndefined();
  });

  it('places a zone of `auto` even on a single-host provider', async () => {
    const single = new MultiHostProvider(['only']);
    const h = await start(single);
    await h.proxies.create(managedProxy('alpha', { placement: { zone: 'auto', machineType: 'small', image: 'debian-13' } }));
    await h.settle();
    expect([...single.instances.values()][0]?.placement?.zone).toBe('only');
  });
});
