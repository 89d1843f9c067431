// The pool-space precheck: before any volume is created, the pool's free space must cover the
// image (only while it is not cached; its size from HEAD, or a GET closed at once when HEAD is
// refused), the overlay's diskSizeGb and 16 MiB for the seed. Short is ErrQuotaExceeded naming the
// pool and both numbers; a pool that is not running is permanent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoragePoolState } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { neededBytes, seedReserveBytes } from '@/server/providers/kvm2/image';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { makeHarness, TestMirror, testImage } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const gib = 1024 ** 3;
const diskSizeGb = 2;
const overlayAndSeed = diskSizeGb * gib + seedReserveBytes;

function harnessWithPool(capacity: number, imagePath?: string) {
  const hypervisor = new FakeHypervisor({ poolCapacity: capacity });
  return makeHarness({ mirror, diskSizeGb, imagePath, hypervisors: { h1: hypervisor } });
}

async function createOutcome(harness: ReturnType<typeof makeHarness>) {
  return harness.provider.create(harness.request('proxy-quota')).then(
    () => undefined,
    (err: unknown) => err as Error,
  );
}

describe('neededBytes', () => {
  it('adds the image, the overlay in GiB and the seed reserve of 16 MiB', () => {
    expect(neededBytes({ imageBytes: 1000, diskSizeGb: 3 })).toBe(1000 + 3 * gib + 16 * 1024 * 1024);
  });
});

describe('the pool-space precheck', () => {
  it('a pool short of the image plus overlay plus seed is ErrQuotaExceeded naming pool, available and needed; nothing is created', async () => {
    const needed = testImage.length + overlayAndSeed;
    const harness = harnessWithPool(needed - 1);
    const error = await createOutcome(harness);
    expect(errorClassOf(error)).toBe('quotaExceeded');
    expect(error?.message).toContain('"default"');
    expect(error?.message).toContain(`${needed - 1} bytes available`);
    expect(error?.message).toContain(`${needed} needed`);
    expect(harness.hypervisor.count('storageVolCreateXml')).toBe(0);
    expect(harness.hypervisor.volumeNames()).toEqual([]);
  });

  it('exactly enough room passes', async () => {
    const harness = harnessWithPool(testImage.length + overlayAndSeed);
    expect(await createOutcome(harness)).toBeUndefined();
  });

  it('a cached image does not count again', async () => {
    const cachedBytes = testImage.length + 64;
    const enough = harnessWithPool(cachedBytes + overlayAndSeed);
    enough.seedCache();
    expect(await createOutcome(enough)).toBeUndefined();

    const short = harnessWithPool(cachedBytes + overlayAndSeed - 1);
    short.seedCache();
    const error = await createOutcome(short);
    expect(errorClassOf(error)).toBe('quotaExceeded');
    expect(error?.message).toContain(`${overlayAndSeed} needed`);
  });

  it('a mirror refusing HEAD is asked with a GET closed at once, and its length counts', async () => {
    const harness = harnessWithPool(overlayAndSeed, '/head-405.qcow2');
    const before = mirror.gets('/head-405.qcow2');
    const error = await createOutcome(harness);
    expect(errorClassOf(error)).toBe('quotaExceeded');
    expect(error?.message).toContain(`${testImage.length + overlayAndSeed} needed`);
    expect(mirror.gets('/head-405.qcow2') - before).toBe(1);
  });

  it('a pool that is not running is permanent, before anything is created', async () => {
    const hypervisor = new FakeHypervisor();
    hypervisor.pool().state = StoragePoolState.Inactive;
    const harness = makeHarness({ mirror, hypervisors: { h1: hypervisor } });
    const error = await createOutcome(harness);
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain('storage pool is not running');
    expect(hypervisor.count('storageVolCreateXml')).toBe(0);
  });

  it('a pool that does not exist is permanent', async () => {
    const hypervisor = new FakeHypervisor({ pool: 'elsewhere' });
    const harness = makeHarness({ mirror, hypervisors: { h1: hypervisor } });
    expect(errorClassOf(await createOutcome(harness))).toBe('permanent');
  });

  it.each([
    ['/404', 'permanent'],
    ['/503', 'transient'],
    ['/429', 'transient'],
    ['/chunked.qcow2', 'permanent'],
    ['/empty.qcow2', 'permanent'],
  ])('the size probe of %s gives %s, naming the URL', async (path, errorClass) => {
    const harness = harnessWithPool(100 * gib, path);
    const error = await createOutcome(harness);
    expect(errorClassOf(error)).toBe(errorClass);
    expect(error?.message).toContain(`${mirror.url}${path}`);
    expect(harness.hypervisor.count('storageVolCreateXml')).toBe(0);
  });
});
