// The host inventory over an in-memory libvirt: every pool with its state, this entry's cached
// images with size, digest, completeness and the domains backing onto each (through overlays and
// through a live backing chain), every domain with its marks; and eviction in the spec's order,
// refused while a domain backs onto the base, cleaning up half-made pairs.
import { beforeEach, describe, expect, it } from 'vitest';
import { StoragePoolState } from '@/server/libvirt';
import { ErrPermanent, ErrTransient } from '@/server/providers/errors';
import { DownloadTracker } from '@/server/providers/kvm2/download-progress';
import { HostNotFoundError, ImageInUseError, ImageNotFoundError, listHost } from '@/server/providers/kvm2/inventory';
import { evictCachedImage } from '@/server/providers/kvm2/inventory-evict';
import { KeyedLock } from '@/server/providers/kvm2/keyed-lock';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { digest, entry, images, populateHost, settings } from './inventory-fixture';

let hypervisor: FakeHypervisor;
let backend: FakeHostBackend;
const target = () => ({ settings, backend, host: 'hv-1', locks: new KeyedLock(), downloads: new DownloadTracker() });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

beforeEach(() => {
  hypervisor = new FakeHypervisor({ poolCapacity: 100 * 2 ** 30 });
  hypervisor.addPool({ name: 'isos', state: StoragePoolState.Inactive });
  populateHost(hypervisor);
  backend = new FakeHostBackend({ 'hv-1': hypervisor });
});

describe('host inventory', () => {
  it('lists every pool with its state and sizes, the configured one marked', async () => {
    const listing = await listHost(target());
    expect(listing.pools).toEqual([
      {
        name: 'default',
        state: 'running',
        capacityBytes: 100 * 2 ** 30,
        allocationBytes: expect.any(Number),
        availableBytes: expect.any(Number),
        configured: true,
      },
      { name: 'isos', state: 'inactive', capacityBytes: 0, allocationBytes: 0, availableBytes: 0, configured: false },
    ]);
  });

  it("lists this entry's cached images with digest, completeness and the domains backing onto each", async () => {
    const listing = await listHost(target());
    const byVolume = Object.fromEntries(listing.images.map((image) => [image.volume, image]));
    expect(Object.keys(byVolume).sort()).toEqual([images.noMarker, images.unused, images.used, images.markerOnly].sort());
    expect(byVolume[images.used]).toMatchObject({
      entry,
      key: 'debian',
      format: 'qcow2',
      sizeBytes: 2_147_483_648,
      sha256: digest,
      complete: true,
      baseExists: true,
      markerExists: true,
      domains: ['proxy-a', 'proxy-b'],
    });
    expect(byVolume[images.unused]).toMatchObject({ complete: true, domains: [] });
    expect(byVolume[images.noMarker]).toMatchObject({ key: '0123456789abcdef', complete: false, markerExists: false, domains: ['hand-made'] });
    expect(byVolume[images.markerOnly]).toMatchObject({ key: 'old', format: 'raw', complete: false, baseExists: false, markerExists: true, domains: [] });
  });

  it('lists every domain with its state and marks', async () => {
    const listing = await listHost(target());
    expect(listing.domains).toEqual([
      { name: 'broken-mark', state: 'shut off', gen1: false, markProblem: expect.stringContaining('managed is "maybe"') },
      { name: 'hand-made', state: 'running', gen1: false },
      { name: 'old-vm', state: 'shut off', gen1: true },
      { name: 'proxy-a', state: 'running', gen1: false, mark: { managed: true, uid: 'uid-a', created: '2026-01-02T03:04:05Z' } },
      { name: 'proxy-b', state: 'shut off', gen1: false, mark: { managed: true, uid: 'uid-gone', created: '2026-01-02T03:04:05Z' } },
    ]);
  });

  it('still lists pools and domains when the configured pool is not running, without images', async () => {
    hypervisor.pool('default').state = StoragePoolState.Inactive;
    const listing = await listHost(target());
    expect(listing.pools.find((pool) => pool.name === 'default')?.state).toBe('inactive');
    expect(listing.images).toEqual([]);
    expect(listing.domains).toHaveLength(5);
  });

  it('skips a domain that vanished mid-listing and reports one it could not read', async () => {
    hypervisor.failOnce('domainGetXmlDesc', 'ErrNoDomain', 'old-vm');
    hypervisor.failOnce('domainGetState', 'ErrOperationFailed', 'proxy-b');
    const listing = await listHost(target());
    expect(listing.domains.map((domain) => domain.name)).not.toContain('old-vm');
    expect(listing.domains.find((domain) => domain.name === 'proxy-b')).toMatchObject({ state: 'unknown', markProblem: expect.any(String) });
  });

  it('refuses an unknown host, and classifies an unreachable one as transient', async () => {
    expect(await failure(listHost({ ...target(), host: 'hv-9' }))).toBeInstanceOf(HostNotFoundError);
    backend.unreachable.add('hv-1');
    expect(await failure(listHost(target()))).toBeInstanceOf(ErrTransient);
  });
});

describe('image eviction', () => {
  const deletes = () => hypervisor.calls.filter((call) => call.method === 'storageVolDelete').map((call) => call.subject);

  it('is refused while domains back onto the base, naming them, and deletes nothing', async () => {
    const err = await failure(evictCachedImage({ ...target(), volume: images.used }));
    expect(err).toBeInstanceOf(ImageInUseError);
    expect((err as ImageInUseError).domains).toEqual(['proxy-a', 'proxy-b']);
    expect(deletes()).toEqual([]);
    const live = await failure(evictCachedImage({ ...target(), volume: images.noMarker }));
    expect((live as ImageInUseError).domains).toEqual(['hand-made']);
  });

  it('removes an unused image marker first, then the base', async () => {
    const outcome = await evictCachedImage({ ...target(), volume: images.unused });
    expect(outcome).toEqual({ host: 'hv-1', volume: images.unused, removed: [`${images.unused}.sha256`, images.unused] });
    expect(deletes()).toEqual([`${images.unused}.sha256`, images.unused]);
    expect(hypervisor.volume(images.unused)).toBeUndefined();
  });

  it('cleans up a marker without its base, named by either volume', async () => {
    expect((await evictCachedImage({ ...target(), volume: `${images.markerOnly}.sha256` })).removed).toEqual([`${images.markerOnly}.sha256`]);
    expect(hypervisor.volume(`${images.markerOnly}.sha256`)).toBeUndefined();
  });

  it('cleans up a base without its marker once nothing backs onto it', async () => {
    hypervisor.domains.delete('hand-made');
    expect((await evictCachedImage({ ...target(), volume: images.noMarker })).removed).toEqual([images.noMarker]);
  });

  it("never touches a volume that is not this entry's cached image", async () => {
    for (const volume of ['proxy-a.qcow2', 'proxy-a-seed.iso', images.otherEntry, 'base-kvm2-home-debian.vmdk', `base-${entry}-gone.qcow2`]) {
      expect(await failure(evictCachedImage({ ...target(), volume })), volume).toBeInstanceOf(ImageNotFoundError);
    }
    expect(deletes()).toEqual([]);
  });

  it('refuses while the pool is not running, or while a domain cannot be read', async () => {
    hypervisor.failOnce('domainGetXmlDesc', 'ErrOperationFailed', 'proxy-b');
    expect(await failure(evictCachedImage({ ...target(), volume: images.unused }))).toBeInstanceOf(ErrTransient);
    hypervisor.pool('default').state = StoragePoolState.Inactive;
    expect(await failure(evictCachedImage({ ...target(), volume: images.unused }))).toBeInstanceOf(ErrPermanent);
    expect(deletes()).toEqual([]);
  });
});
