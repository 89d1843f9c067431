// The host inventory the dashboard shows, and manual eviction of a cached base image.
//
// Listing a host reads every storage pool (state and sizes), this entry's cached base images in
// the host's configured pool (size, digest from the marker, complete or not) and every domain
// (state, kvm2's or the first-generation provider's mark), and counts for each base image the
// domains whose disks back onto it: each disk's file and backing chain as the domain XML gives
// them, followed through the pool's volumes (an inactive domain's XML names only its overlay).
//
// Eviction runs in the spec's order, marker first, then the base, under the image lock Create
// takes, and is refused while any domain on the host or any volume in the pool backs onto the
// base (libvirt would unlink it under running guests). A marker without its base, or a base
// without its marker, is cleaned up the same way.
import {
  DomainState,
  isLibvirtError,
  LibvirtError,
  StoragePoolState,
  storagePoolStateWords,
  type Domain,
  type StoragePool,
  type StorageVol,
} from '@/server/libvirt';
import { ErrPermanent, ErrTransient, ProviderError } from '@/server/providers/errors';
import type { CachedImageListing, DomainListing, EvictOutcome, HostListing, PoolListing } from '@/server/providers/host-inventory';
import { classify } from './errors';
import { lookupVolume } from './image';
import { imageLockKey, type KeyedLock } from './keyed-lock';
import type { DownloadTracker } from './download-progress';
import { HostNotFoundError, ImageBusyError, ImageInUseError, ImageNotFoundError } from './inventory-errors';
import { dependencyClosure, domainFacts, parseCachedImageName, type CachedImageName, type DomainFacts } from './inventory-parse';
import { configuredHost, type Kvm2Host, type Kvm2Settings } from './kvm2';
import type { HostBackend, LibvirtAPI } from './libvirt-api';
import { markerSizeBytes } from './volume';
import { parseVolumeXML, type VolumeDescription } from './xml-parse';
import { mapLimited } from './map-limited';

export { HostNotFoundError, ImageBusyError, ImageInUseError, ImageNotFoundError } from './inventory-errors';

/** virsh's word for each domain state (`virsh domstate`). */
export const domainStateWords: Record<number, string> = {
  [DomainState.NoState]: 'no state',
  [DomainState.Running]: 'running',
  [DomainState.Blocked]: 'idle',
  [DomainState.Paused]: 'paused',
  [DomainState.Shutdown]: 'in shutdown',
  [DomainState.Shutoff]: 'shut off',
  [DomainState.Crashed]: 'crashed',
  [DomainState.PmSuspended]: 'pmsuspended',
};

export interface InventoryTarget {
  settings: Kvm2Settings;
  backend: HostBackend;
  host: string;
  signal?: AbortSignal;
}

/** Domains and volumes read at once on a host: the RPCs share one multiplexed connection. */
const concurrency = 8;

interface DomainRead {
  listing: DomainListing;
  facts: DomainFacts | undefined;
}

/** Every domain with its state and disk facts; one that vanished meanwhile is left out. */
async function readDomains(api: LibvirtAPI, signal?: AbortSignal): Promise<DomainRead[]> {
  const domains = await api.connectListAllDomains({ flags: 0, signal });
  const read = await mapLimited(domains, { limit: concurrency }, async (dom: Domain): Promise<DomainRead | undefined> => {
    try {
      const [{ state }, xml] = await Promise.all([api.domainGetState({ dom, signal }), api.domainGetXmlDesc({ dom, flags: 0, signal })]);
      const facts = domainFacts(xml);
      const listing: DomainListing = { name: dom.name, state: domainStateWords[state] ?? `state ${state}`, gen1: facts.gen1 };
      if (facts.mark) listing.mark = facts.mark;
      if (facts.markProblem) listing.markProblem = facts.markProblem;
      return { listing, facts };
    } catch (err) {
      if (isLibvirtError(err, 'ErrNoDomain')) return undefined;
      if (!(err instanceof LibvirtError)) throw err;
      return { listing: { name: dom.name, state: 'unknown', gen1: false, markProblem: err.message }, facts: undefined };
    }
  });
  return read.filter((entry): entry is DomainRead => entry !== undefined).sort((a, b) => a.listing.name.localeCompare(b.listing.name));
}

interface PoolVolume {
  ref: StorageVol;
  description: VolumeDescription;
}

async function readVolumes(api: LibvirtAPI, pool: StoragePool, signal?: AbortSignal): Promise<PoolVolume[]> {
  const refs = await api.storagePoolListAllVolumes({ pool, flags: 0, signal });
  const read = await mapLimited(refs, { limit: concurrency }, async (ref) => {
    try {
      return { ref, description: parseVolumeXML(await api.storageVolGetXmlDesc({ vol: ref, signal })) };
    } catch (err) {
      if (isLibvirtError(err, 'ErrNoStorageVol')) return undefined;
      throw err;
    }
  });
  return read.filter((entry): entry is PoolVolume => entry !== undefined);
}

/** For each base path, the names of the domains whose disks depend on it. */
function usersByPath(options: { domains: DomainRead[]; volumes: PoolVolume[]; pool: string }): Map<string, string[]> {
  const backingOf = new Map<string, string>();
  const pathByName = new Map<string, string>();
  for (const { description } of options.volumes) {
    if (description.path && description.backingPath) backingOf.set(description.path, description.backingPath);
    if (description.path) pathByName.set(description.name, description.path);
  }
  const pathOfVolume = (ref: { pool: string; volume: string }) => (ref.pool === options.pool ? pathByName.get(ref.volume) : undefined);
  const users = new Map<string, string[]>();
  for (const { listing, facts } of options.domains) {
    if (!facts) continue;
    for (const path of dependencyClosure({ facts, backingOf, pathOfVolume })) users.set(path, [...(users.get(path) ?? []), listing.name]);
  }
  return users;
}

async function readMarkerDigest(api: LibvirtAPI, marker: StorageVol, signal?: AbortSignal): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of api.storageVolDownload({ vol: marker, length: markerSizeBytes, signal })) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('latin1').trim();
  return /^[0-9a-f]{64}$/.test(text) ? text : undefined;
}

async function cachedImages(options: {
  api: LibvirtAPI;
  entry: string;
  volumes: PoolVolume[];
  users: Map<string, string[]>;
  signal?: AbortSignal;
}): Promise<CachedImageListing[]> {
  const { api, entry, volumes, users, signal } = options;
  const byName = new Map(volumes.map((volume) => [volume.description.name, volume]));
  const bases = new Map<string, CachedImageName>();
  for (const name of byName.keys()) {
    const parsed = parseCachedImageName(entry, name);
    if (parsed) bases.set(parsed.base, parsed);
  }
  const listed = await mapLimited([...bases.values()], { limit: concurrency }, async (image): Promise<CachedImageListing> => {
    const base = byName.get(image.base);
    const marker = byName.get(image.marker);
    const sha256 = marker ? await readMarkerDigest(api, marker.ref, signal) : undefined;
    return {
      volume: image.base,
      markerVolume: image.marker,
      entry,
      key: image.key,
      format: base?.description.format ?? image.format,
      ...(base?.description.capacityBytes !== undefined ? { sizeBytes: base.description.capacityBytes } : {}),
      ...(base?.description.allocationBytes !== undefined ? { allocationBytes: base.description.allocationBytes } : {}),
      ...(sha256 ? { sha256 } : {}),
      complete: base !== undefined && sha256 !== undefined,
      baseExists: base !== undefined,
      markerExists: marker !== undefined,
      domains: (base?.description.path ? users.get(base.description.path) : undefined) ?? [],
    };
  });
  return listed.sort((a, b) => a.volume.localeCompare(b.volume));
}

async function readPools(api: LibvirtAPI, host: Kvm2Host, signal?: AbortSignal): Promise<Array<PoolListing & { ref: StoragePool }>> {
  const pools = await api.connectListAllStoragePools({ flags: 0, signal });
  const listed = await mapLimited(pools, { limit: concurrency }, async (ref) => {
    const info = await api.storagePoolGetInfo({ pool: ref, signal });
    return {
      ref,
      name: ref.name,
      state: storagePoolStateWords[info.state] ?? `state ${info.state}`,
      capacityBytes: info.capacity,
      allocationBytes: info.allocation,
      availableBytes: info.available,
      configured: ref.name === host.pool,
    };
  });
  return listed.sort((a, b) => a.name.localeCompare(b.name));
}

function hostOf(target: InventoryTarget): Kvm2Host {
  const host = configuredHost(target.settings, target.host);
  if (!host) throw new HostNotFoundError(target.host, target.settings.name);
  return host;
}

/** Our own typed errors pass; everything from libvirt or the connection gets the contract's class. */
async function classified<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (
      err instanceof HostNotFoundError ||
      err instanceof ImageNotFoundError ||
      err instanceof ImageInUseError ||
      err instanceof ImageBusyError ||
      err instanceof ProviderError
    )
      throw err;
    throw classify(err, { op: 'get' });
  }
}

export function listHost(target: InventoryTarget): Promise<HostListing> {
  return classified(async () => {
    const host = hostOf(target);
    const { signal } = target;
    const api = await target.backend.pooled(host.name, { signal });
    const [pools, domains] = await Promise.all([readPools(api, host, signal), readDomains(api, signal)]);
    const configured = pools.find((pool) => pool.configured);
    const running = configured?.state === storagePoolStateWords[StoragePoolState.Running];
    const volumes = configured && running ? await readVolumes(api, configured.ref, signal) : [];
    const users = usersByPath({ domains, volumes, pool: host.pool });
    const images = await cachedImages({ api, entry: target.settings.name, volumes, users, signal });
    return {
      host: host.name,
      pool: host.pool,
      pools: pools.map(({ ref: _ref, ...pool }) => pool),
      images,
      domains: domains.map((domain) => domain.listing),
    };
  });
}

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
