// The image cache's rules, all read from the pool: a base is complete when its marker exists; a
// base without one, or a marker that is not a digest, is refetched; a marker without its base is
// cleaned up; a configured sha256 differing from the cached marker is refused by name and the
// base is never replaced. The marker is written last, on the pooled connection, after a refresh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorClassOf } from '@/server/providers/errors';
import { makeHarness, TestMirror, testImage, testImageDigest } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const otherDigest = 'a'.repeat(64);
let counter = 0;
const nextDomain = () => `proxy-img-${++counter}`;

async function createOutcome(harness: ReturnType<typeof makeHarness>) {
  return harness.provider.create(harness.request(nextDomain())).then(
    () => undefined,
    (err: unknown) => err as Error,
  );
}

describe('first use of an image on a host', () => {
  it('streams it on a fresh connection, closed afterwards, then refreshes and writes the marker last on the pooled one', async () => {
    const harness = makeHarness({ mirror });
    const { base, marker } = harness.imageVolumes;
    expect(await createOutcome(harness)).toBeUndefined();
    expect(harness.hypervisor.volume(base)?.content.equals(testImage)).toBe(true);
    expect(harness.hypervisor.volume(marker)?.content.toString()).toBe(testImageDigest);
    const [upload] = harness.hypervisor.calls.filter((call) => call.method === 'storageVolUpload' && call.subject === base);
    expect(upload?.connection).toMatch(/^fresh#/);
    expect(harness.backend.freshCloses).toEqual(harness.backend.freshDials);
    const order = harness.hypervisor.calls.map((call) => `${call.method}:${call.subject}:${call.connection}`);
    const refresh = order.indexOf('storagePoolRefresh:default:pooled');
    const markerUpload = order.indexOf(`storageVolUpload:${marker}:pooled`);
    expect(order.indexOf(`storageVolUpload:${base}:${upload?.connection}`)).toBeLessThan(refresh);
    expect(refresh).toBeLessThan(markerUpload);
    expect(harness.logs.find((line) => line.msg === 'fetching base image into host pool')).toMatchObject({
      url: `${mirror.url}/image.qcow2`,
      size: testImage.length,
    });
    expect(harness.logs.find((line) => line.msg === 'base image cached')).toMatchObject({ size: testImage.length, sha256: testImageDigest });
  });

  it('a second Create on the same host does not download again', async () => {
    const harness = makeHarness({ mirror });
    await createOutcome(harness);
    const gets = mirror.gets('/image.qcow2');
    const heads = mirror.hits.get('HEAD /image.qcow2');
    await createOutcome(harness);
    expect(mirror.gets('/image.qcow2')).toBe(gets);
    expect(mirror.hits.get('HEAD /image.qcow2')).toBe(heads);
    expect(harness.backend.freshDials).toHaveLength(1);
  });

  it('with a configured sha256 that matches, the image is cached the same way', async () => {
    const harness = makeHarness({ mirror, sha256: testImageDigest });
    expect(await createOutcome(harness)).toBeUndefined();
    expect(harness.hypervisor.volume(harness.imageVolumes.marker)?.content.toString()).toBe(testImageDigest);
  });
});

describe('a cached copy that is not complete is refetched', () => {
  it('a base without its marker is deleted and fetched again, with a log line', async () => {
    const harness = makeHarness({ mirror });
    harness.hypervisor.addVolume({ name: harness.imageVolumes.base, content: testImage.subarray(0, 100) });
    const gets = mirror.gets('/image.qcow2');
    expect(await createOutcome(harness)).toBeUndefined();
    expect(mirror.gets('/image.qcow2')).toBe(gets + 1);
    expect(harness.hypervisor.volume(harness.imageVolumes.base)?.content.equals(testImage)).toBe(true);
    expect(harness.logs.some((line) => line.msg === 'image marker forces a refetch')).toBe(true);
  });

  it.each([['garbage'], ['0'.repeat(63)], [`${'g'.repeat(64)}`], ['']])('a marker holding %j is not a digest: refetch', async (content) => {
    const harness = makeHarness({ mirror });
    harness.hypervisor.addVolume({ name: harness.imageVolumes.base, content: Buffer.alloc(10) });
    harness.hypervisor.addVolume({ name: harness.imageVolumes.marker, content });
    expect(await createOutcome(harness)).toBeUndefined();
    expect(harness.hypervisor.volume(harness.imageVolumes.base)?.content.equals(testImage)).toBe(true);
    expect(harness.hypervisor.volume(harness.imageVolumes.marker)?.content.toString()).toBe(testImageDigest);
  });

  it('a marker without its base is removed and the image fetched', async () => {
    const harness = makeHarness({ mirror });
    harness.hypervisor.addVolume({ name: harness.imageVolumes.marker, content: testImageDigest });
    expect(await createOutcome(harness)).toBeUndefined();
    expect(harness.hypervisor.volume(harness.imageVolumes.base)?.content.equals(testImage)).toBe(true);
  });
});

describe('a changed sha256', () => {
  it('differing from the cached marker is refused permanently by name, and the base is never touched', async () => {
    const harness = makeHarness({ mirror, sha256: otherDigest });
    harness.seedCache();
    const gets = mirror.gets('/image.qcow2');
    const error = await createOutcome(harness);
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(harness.imageVolumes.base);
    expect(error?.message).toContain(testImageDigest);
    expect(error?.message).toContain(otherDigest);
    expect(harness.hypervisor.count('storageVolDelete')).toBe(0);
    expect(harness.hypervisor.count('storageVolCreateXml')).toBe(0);
    expect(mirror.gets('/image.qcow2')).toBe(gets);
    expect(harness.hypervisor.volume(harness.imageVolumes.base)?.content.equals(testImage)).toBe(true);
  });

  it('a download not matching the configured sha256 is permanent and leaves neither base nor marker', async () => {
    const harness = makeHarness({ mirror, sha256: otherDigest });
    const error = await createOutcome(harness);
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(otherDigest);
    expect(harness.hypervisor.volumeNames()).toEqual([]);
  });
});
