// Eviction respects what Create respects: it runs under the (host, base volume) image lock,
// is refused (not queued) while a download or a Create holds that lock, naming which, and is
// refused while any volume in the pool backs onto the base, even one no domain uses yet (a
// Create between its overlay and its define).
import { beforeEach, describe, expect, it } from 'vitest';
import { StoragePoolState } from '@/server/libvirt';
import { DownloadTracker } from '@/server/providers/kvm2/download-progress';
import { ImageBusyError, ImageInUseError } from '@/server/providers/kvm2/inventory';
import { evictCachedImage } from '@/server/providers/kvm2/inventory-evict';
import { KeyedLock } from '@/server/providers/kvm2/keyed-lock';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { images, populateHost, settings } from './inventory-fixture';

let hypervisor: FakeHypervisor;
let backend: FakeHostBackend;
let locks: KeyedLock;
let downloads: DownloadTracker;
const target = (volume: string) => ({ settings, backend, host: 'hv-1', volume, locks, downloads });
const lockKey = (volume: string) => `hv-1\u0000${volume}`;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );
const deletes = () => hypervisor.calls.filter((call) => call.method === 'storageVolDelete').map((call) => call.subject);

/** Holds the image lock of `volume` until the returned release is called, as a Create would. */
async function holdLock(volume: string): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let taken!: () => void;
  const takenNow = new Promise<void>((resolve) => (taken = resolve));
  void locks.run(lockKey(volume), async () => {
    taken();
    await held;
  });
  await takenNow;
  return release;
}

beforeEach(() => {
  hypervisor = new FakeHypervisor({ poolCapacity: 100 * 2 ** 30 });
  hypervisor.addPool({ name: 'isos', state: StoragePoolState.Inactive });
  populateHost(hypervisor);
  backend = new FakeHostBackend({ 'hv-1': hypervisor });
  locks = new KeyedLock();
  downloads = new DownloadTracker();
});

describe('eviction and the image lock', () => {
  it('is refused with 409 while a download of the base is in progress, naming it, and deletes nothing', async () => {
    const release = await holdLock(images.noMarker);
    downloads.start({ host: 'hv-1', volume: images.noMarker, urlHost: 'mirror.example', totalBytes: 1000 })(250);
    hypervisor.domains.delete('hand-made');
    const err = await failure(evictCachedImage(target(images.noMarker)));
    expect(err).toBeInstanceOf(ImageBusyError);
    expect((err as ImageBusyError).code).toBe('ERR_IMAGE_BUSY');
    expect((err as Error).message).toMatch(/download .*in progress/);
    expect((err as Error).message).toContain('250 of 1000 bytes');
    expect(deletes()).toEqual([]);
    release();
  });

  it('is refused while a Create holds the lock, naming the Create, and is not queued behind it', async () => {
    const release = await holdLock(images.unused);
    const err = await failure(evictCachedImage(target(images.unused)));
    expect(err).toBeInstanceOf(ImageBusyError);
    expect((err as Error).message).toContain('a Create');
    release();
    await Promise.resolve();
    expect(deletes()).toEqual([]);
    expect(hypervisor.volume(images.unused)).toBeDefined();
  });

  it('is refused by either name of the image (the marker too)', async () => {
    const release = await holdLock(images.unused);
    expect(await failure(evictCachedImage(target(`${images.unused}.sha256`)))).toBeInstanceOf(ImageBusyError);
    release();
  });

  it('holds the lock while it deletes, so a Create for the image waits for it', async () => {
    const gate = hypervisor.gate('storageVolDelete');
    const evicting = evictCachedImage(target(images.unused));
    await gate.arrived;
    expect(locks.held(lockKey(images.unused))).toBe(true);
    let createRan = false;
    const create = locks.run(lockKey(images.unused), async () => {
      createRan = true;
    });
    await Promise.resolve();
    expect(createRan).toBe(false);
    gate.release();
    expect((await evicting).removed).toEqual([`${images.unused}.sha256`, images.unused]);
    await create;
    expect(createRan).toBe(true);
    expect(locks.held(lockKey(images.unused))).toBe(false);
  });

  it('is refused while volumes in the pool back onto the base though no domain uses them, naming them', async () => {
    // A Create between its overlay and its define: the overlay exists, the domain does not yet.
    hypervisor.domains.delete('proxy-a');
    hypervisor.domains.delete('proxy-b');
    const err = await failure(evictCachedImage(target(images.used)));
    expect(err).toBeInstanceOf(ImageInUseError);
    expect((err as ImageInUseError).code).toBe('ERR_IMAGE_IN_USE');
    expect((err as ImageInUseError).volumes).toEqual(['proxy-a.qcow2', 'proxy-b.qcow2']);
    expect((err as Error).message).toContain('proxy-a.qcow2, proxy-b.qcow2');
    expect(deletes()).toEqual([]);
  });

  it('counts an overlay backed through another overlay', async () => {
    hypervisor.domains.delete('proxy-a');
    hypervisor.domains.delete('proxy-b');
    hypervisor.pool().volumes.delete('proxy-b.qcow2');
    hypervisor.addVolume({ name: 'snap.qcow2', format: 'qcow2', backingPath: hypervisor.pathOf(hypervisor.pool(), 'proxy-a.qcow2') });
    const err = await failure(evictCachedImage(target(images.used)));
    expect((err as ImageInUseError).volumes).toEqual(['proxy-a.qcow2', 'snap.qcow2']);
  });
});
