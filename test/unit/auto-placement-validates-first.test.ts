// Automatic placement checks the whole placement (machine type and image) before it measures any
// host or records a choice, as the spec orders ("All three fields are checked before any host is
// dialled"): a Proxy with an unknown image must fail with the spec's message, leaving no host
// recorded in its status, no `Placed` event and no connection made to any hypervisor.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '@/server/providers/contract';
import { controlPlane, type Harness as ControlPlane, managedProxy } from '@/test/fakes/control-plane';
import { makeHarness, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

let plane: ControlPlane | undefined;
afterEach(async () => {
  await plane?.close();
  plane = undefined;
});

const reachable = (name: string): Target => ({ name, ready: true, reason: 'Reachable', message: '', details: {}, latencyMs: 1, checkedAt: '' });

describe('automatic placement validates the placement first', () => {
  it.each([
    ['an unknown image', { machineType: 'small', image: 'nope' }, 'placement.image "nope" is neither a key in kvm2.images nor an http(s) URL'],
    ['an unknown machine type', { machineType: 'huge', image: 'img' }, 'placement.machineType "huge" is not in kvm2.machineTypes'],
  ])('%s: Failed with the spec message, no host measured, nothing recorded', async (_what, placement, message) => {
    const kvm2 = makeHarness({ mirror, hosts: ['h1', 'h2'] });
    plane = await controlPlane({ providers: [kvm2.provider] });
    await plane.store.health.record({ provider: kvm2.provider.name, targets: [reachable('h1'), reachable('h2')], nowMs: Date.now() });

    await plane.proxies.create(managedProxy('alpha', { provider: kvm2.provider.name, placement }));
    await plane.settle();

    const view = await plane.proxies.get('alpha');
    expect(view.status.phase).toBe('Failed');
    expect(view.status.conditions.map((condition) => condition.message).join(' | ')).toContain(message);
    expect(view.status.chosenPlacement).toBeUndefined();
    expect((await plane.proxies.events('alpha')).map((event) => event.reason)).not.toContain('Placed');
    expect(kvm2.backend.pooledDials, 'connections made to measure hosts').toBe(0);
    expect(kvm2.backend.freshDials).toEqual([]);
  });
});
