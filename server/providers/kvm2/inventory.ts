// The host inventory the dashboard shows.
//
// Listing a host reads every storage pool (state and sizes), this entry's cached base images in
// the host's configured pool (size, digest from the marker, complete or not) and every domain
// (state, kvm2's or the first-generation provider's mark), and counts for each base image the
// domains whose disks back onto it: each disk's file and backing chain as the domain XML gives
// them, followed through the pool's volumes (an inactive domain's XML names only its overlay).
// Evicting a cached image: inventory-evict.ts.
import { StoragePoolState, storagePoolStateWords, type StoragePool, type StorageVol } from '@/server/libvirt';
import type { CachedImageListing, HostListing, PoolListing } from '@/server/providers/host-inventory';
import { parseCachedImageName, type CachedImageName } from './inventory-parse';
import { classified, hostReadConcurrency, hostOf, readDomains, readVolumes, usersByPath, type InventoryTarget, type PoolVolume } from './inventory-read';
import type { Kvm2Host } from './kvm2';
import type { LibvirtAPI } from './libvirt-api';
import { markerSizeBytes } from './volume';
import { mapLimited } from './map-limited';

export { HostNotFoundError, ImageBusyError, ImageInUseError, ImageNotFoundError } from './inventory-errors';

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
  const listed = await mapLimited([...bases.values()], { limit: hostReadConcurrency }, async (image): Promise<CachedImageListing> => {
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
  const listed = await mapLimited(pools, { limit: hostReadConcurrency }, async (ref) => {
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
