// kvm2's host-capacity capability (server/providers/host-capacity.ts): what a placement needs
// (the overlay at diskSizeGb, the seed's reserve and the machine type's memory) and, per host, the
// configured pool's free space, the node's free memory and the managed domains, read over the
// provider's pooled connection.
import { StoragePoolState } from '@/server/libvirt';
import type { Placement } from '@/server/providers/contract';
import { ErrPermanent } from '@/server/providers/errors';
import type { HostCapacity, HostCapacityReader } from '@/server/providers/host-capacity';
import type { Kvm2Context } from './context';
import { classify } from './errors';
import { seedReserveBytes } from './image';
import { resolveImage } from './image-resolve';
import { listHostInstances } from './instance';
import { configuredHost, machineType } from './kvm2';
import { diskSizeBytes } from './volume';

const kib = 1024n;

/** free + buffers + cached: what the kernel can hand a new guest without swapping. */
function freeMemoryBytes(statsKiB: Record<string, bigint>): number {
  const free = (statsKiB.free ?? 0n) + (statsKiB.buffers ?? 0n) + (statsKiB.cached ?? 0n);
  return Number(free * kib);
}

async function measureHost(context: Kvm2Context, name: string, signal?: AbortSignal): Promise<HostCapacity> {
  const host = configuredHost(context.settings, name);
  if (!host) throw new ErrPermanent(`host ${JSON.stringify(name)} is not in kvm2.hosts`);
  try {
    const api = await context.backend.pooled(host.name, { signal });
    const pool = await api.storagePoolLookupByName({ name: host.pool, signal });
    const [info, memory, instances] = await Promise.all([
      api.storagePoolGetInfo({ pool, signal }),
      api.nodeGetMemoryStats({ signal }),
      listHostInstances(context, host, signal),
    ]);
    const running = info.state === StoragePoolState.Running;
    return {
      host: host.name,
      pool: host.pool,
      poolRunning: running,
      poolAvailableBytes: running ? info.available : 0,
      freeMemoryBytes: freeMemoryBytes(memory),
      managedInstances: instances.length,
    };
  } catch (err) {
    throw classify(err, { op: 'get' });
  }
}

export function kvm2HostCapacity(context: Kvm2Context): HostCapacityReader {
  return {
    policy: context.settings.placementPolicy,
    hosts: () => context.settings.hosts.map((host) => host.name),
    needs: (placement: Placement) => {
      // The whole placement is checked before any host is measured or a choice recorded (the
      // spec's order, zone aside: the control plane is about to choose it): machineType, image.
      // The placement preview asks with no image ('').
      const memoryMiB = machineType(context.settings, placement.machineType).memoryMiB;
      if (placement.image !== '') resolveImage(context.settings, placement.image);
      return { diskBytes: diskSizeBytes(context.settings.diskSizeGb) + seedReserveBytes, memoryBytes: memoryMiB * 1024 * 1024 };
    },
    measure: (host, options = {}) => measureHost(context, host, options.signal),
  };
}
