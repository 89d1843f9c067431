// A Create holds the image lock of (host, base volume) from its cache check until its overlay
// backs onto the base: an eviction in between, which would unlink the base under the new overlay,
// is refused as busy (it refuses rather than queue while the lock is held).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageBusyError } from '@/server/providers/kvm2/inventory-errors';
import { makeHarness, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

describe('Create and eviction of its base', () => {
  it('an eviction while a Create is between its cached base and its overlay is refused as busy; the Create then completes', async () => {
    const harness = makeHarness({ mirror });
    harness.seedCache();
    const domain = 'proxy-lockheld';
    const overlay = harness.hypervisor.gate('storageVolCreateXml', `${domain}.qcow2`);
    const creating = harness.provider.create(harness.request(domain));
    await overlay.arrived;

    const eviction = await harness.provider.inventory.evictImage({ host: 'h1', volume: harness.imageVolumes.base }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(eviction).toBeInstanceOf(ImageBusyError);
    expect(harness.hypervisor.volume(harness.imageVolumes.base)).toBeDefined();

    overlay.release();
    await creating;
    expect(harness.hypervisor.volume(`${domain}.qcow2`)?.backingPath).toBe(harness.hypervisor.pathOf(harness.hypervisor.pool(), harness.imageVolumes.base));
  });
});
