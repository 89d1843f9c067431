// All three placement fields resolved before any host is dialled: an unknown value is permanent
// and must not cost a connection.
import type { MachineType } from '@/server/providers/config-kvm2';
import type { Placement } from '@/server/providers/contract';
import { resolveImage, type ResolvedImage } from './image-resolve';
import { host, machineType, type Kvm2Host, type Kvm2Settings } from './kvm2';

export interface ResolvedPlacement {
  host: Kvm2Host;
  machineTypeName: string;
  machineType: MachineType;
  image: ResolvedImage;
}

/** zone, then machineType, then image; the first unknown one throws ErrPermanent. region is ignored. */
export function resolvePlacement(settings: Kvm2Settings, placement: Placement): ResolvedPlacement {
  return {
    host: host(settings, placement.zone),
    machineTypeName: placement.machineType,
    machineType: machineType(settings, placement.machineType),
    image: resolveImage(settings, placement.image),
  };
}
