// kvm2's host-inventory capability (server/providers/host-inventory.ts): host listings (inventory.ts)
// and image eviction (inventory-evict.ts) over the provider's pooled connections, the downloads its
// image cache runs, and the catalogue of hosts, images and machine types the create form offers.
import type { Placement } from '@/server/providers/contract';
import type { Catalogue, HostInventory } from '@/server/providers/host-inventory';
import { redactUrl } from '@/server/telemetry/redact-url';
import type { DownloadTracker } from './download-progress';
import { resolveImage } from './image-resolve';
import { evictCachedImage } from './inventory-evict';
import { listHost } from './inventory';
import type { KeyedLock } from './keyed-lock';
import { host as placementHost, type Kvm2Settings } from './kvm2';
import type { HostBackend } from './libvirt-api';

export function catalogue(settings: Kvm2Settings): Catalogue {
  return {
    hosts: settings.hosts.map((host) => ({
      name: host.name,
      address: host.address,
      user: host.user,
      pool: host.pool,
      bridge: host.bridge,
      virtType: host.virtType,
    })),
    images: [...settings.images].map(([key, image]) => ({
      key,
      url: redactUrl(image.url),
      format: image.format,
      firmware: image.firmware,
      ...(image.sha256 ? { sha256: image.sha256 } : {}),
    })),
    machineTypes: [...settings.machineTypes].map(([name, type]) => ({ name, vcpus: type.vcpus, memoryMiB: type.memoryMiB })),
    diskSizeGb: settings.diskSizeGb,
  };
}

export function kvm2HostInventory(options: { settings: Kvm2Settings; backend: HostBackend; downloads: DownloadTracker; imageLocks: KeyedLock }): HostInventory {
  const { settings, backend, downloads, imageLocks } = options;
  return {
    // No overall deadline: every RPC carries its budget, and abandoning one would kill the pooled
    // connection the reconciler shares.
    listHost: (host, callOptions = {}) => listHost({ settings, backend, host, signal: callOptions.signal }),
    evictImage: (target, callOptions = {}) => evictCachedImage({ settings, backend, ...target, locks: imageLocks, downloads, signal: callOptions.signal }),
    downloads: (host) => downloads.list().filter((download) => download.host === host),
    placementDownload: (placement: Placement) => {
      try {
        const host = placementHost(settings, placement.zone);
        const image = resolveImage(settings, placement.image);
        return downloads.get(host.name, image.baseVolume);
      } catch {
        // A placement the provider refuses has no download; the Proxy's status says why.
        return undefined;
      }
    },
    catalogue: () => catalogue(settings),
  };
}
