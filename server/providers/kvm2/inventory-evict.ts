// Manual eviction of a cached base image from a host's configured pool.
//
// Eviction runs in the spec's order, marker first, then the base, under the image lock Create
// takes, and is refused while any domain on the host or any volume in the pool backs onto the
// base (libvirt would unlink it under running guests). A marker without its base, or a base
// without its marker, is cleaned up the same way.
import { StoragePoolState } from '@/server/libvirt';
import { ErrPermanent, ErrTransient } from '@/server/providers/errors';
import type { EvictOutcome } from '@/server/providers/host-inventory';
import type { DownloadTracker } from './download-progress';
import { lookupVolume } from './image';
import { ImageBusyError, ImageInUseError, ImageNotFoundError } from './inventory-errors';
import { parseCachedImageName, type CachedImageName } from './inventory-parse';
import { classified, hostOf, readDomains, readVolumes, usersByPath, type InventoryTarget, type PoolVolume } from './inventory-read';
import { imageLockKey, type KeyedLock } from './keyed-lock';
import type { Kvm2Host } from './kvm2';
import type { VolumeDescription } from './xml-parse';

/** What eviction needs beyond a listing: the image locks Create takes, and the downloads in flight. */
export interface EvictTarget extends InventoryTarget {
  volume: string;
  /** per (host, base volume), shared with Create (image.ts's ensureImage) */
  locks: KeyedLock;
  downloads: DownloadTracker;
}

/** Names of the pool's volumes whose backing chain, through the pool, reaches `basePath`. */
function volumesBackedBy(volumes: PoolVolume[], basePath: string): string[] {
  const byPath = new Map(volumes.flatMap(({ description }) => (description.path ? [[description.path, description] as const] : [])));
  const reaches = (description: VolumeDescription): boolean => {
    const seen = new Set<string>();
    for (let backing = description.backingPath; backing !== undefined && !seen.has(backing); backing = byPath.get(backing)?.backingPath) {
      if (backing === basePath) return true;
      seen.add(backing);
    }
    return false;
  };
  return volumes
    .filter(({ description }) => reaches(description))
    .map(({ description }) => description.name)
    .sort();
}

/** Who holds the image's lock, in words: its download, or a Create preparing or using it. */
function lockHolder(target: EvictTarget, base: string): string {
  const download = target.downloads.get(target.host, base);
  if (download) return `a download of it is in progress on host ${target.host} (${download.doneBytes} of ${download.totalBytes} bytes)`;
  return `a Create on host ${target.host} is fetching or checking it`;
}

async function evictLocked(target: EvictTarget, host: Kvm2Host, image: CachedImageName): Promise<EvictOutcome> {
  const { signal } = target;
  const api = await target.backend.pooled(host.name, { signal });
  const pool = await api.storagePoolLookupByName({ name: host.pool, signal });
  const info = await api.storagePoolGetInfo({ pool, signal });
  if (info.state !== StoragePoolState.Running) {
    throw new ErrPermanent(`storage pool ${JSON.stringify(host.pool)} on host ${host.name} is not running; start it before evicting`);
  }
  const marker = await lookupVolume(api, pool, image.marker, signal);
  const base = await lookupVolume(api, pool, image.base, signal);
  if (!marker && !base) throw new ImageNotFoundError(image.base, `is not in pool ${JSON.stringify(host.pool)} on host ${host.name}`);
  if (base) {
    const basePath = await api.storageVolGetPath({ vol: base, signal });
    const [domains, volumes] = await Promise.all([readDomains(api, signal), readVolumes(api, pool, signal)]);
    // A domain whose disks could not be read might back onto the base: do not guess.
    const unreadable = domains.filter((domain) => domain.facts === undefined).map((domain) => domain.listing.name);
    if (unreadable.length > 0) throw new ErrTransient(`could not read the disks of ${unreadable.join(', ')} on host ${host.name}; not evicting ${image.base}`);
    const users = usersByPath({ domains, volumes, pool: host.pool }).get(basePath) ?? [];
    // An overlay no domain names yet is a Create between its overlay and its define, or a
    // Proxy's disk whose domain is gone: either way the base must stay.
    const backed = volumesBackedBy(volumes, basePath);
    if (users.length > 0 || backed.length > 0) throw new ImageInUseError({ volume: image.base, host: host.name, domains: users, volumes: backed });
  }
  const removed: string[] = [];
  for (const volume of [marker, base]) {
    if (!volume) continue;
    await api.storageVolDelete({ vol: volume, signal });
    removed.push(volume.name);
  }
  return { host: host.name, volume: image.base, removed };
}

/**
 * Under the image's (host, base volume) lock, the one Create downloads under, so no Create
 * fetches or checks the base meanwhile. A held lock is refused at once, naming its holder:
 * queueing behind a 20-minute download would only evict what was just fetched.
 */
export function evictCachedImage(target: EvictTarget): Promise<EvictOutcome> {
  return classified(async () => {
    const host = hostOf(target);
    const image = parseCachedImageName(target.settings.name, target.volume);
    if (!image) throw new ImageNotFoundError(target.volume, `is not a cached base image of provider ${JSON.stringify(target.settings.name)}`);
    const key = imageLockKey(host.name, image.base);
    if (target.locks.held(key)) throw new ImageBusyError(image.base, lockHolder(target, image.base));
    return target.locks.run(key, () => evictLocked(target, host, image));
  });
}
