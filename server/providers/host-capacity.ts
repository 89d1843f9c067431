// An optional capability of the provider contract: providers whose instances run on several hosts
// the admin owns (kvm2) say what a placement needs from a host and measure what each host has
// left, so the control plane can pick a host when a Proxy leaves placement.zone to it.
import type { CallOptions, Placement } from './contract';

/** spread: the fitting host with the fewest managed instances; pack: the one with the most. */
export const placementPolicies = ['spread', 'pack'] as const;
export type PlacementPolicy = (typeof placementPolicies)[number];

/** What a Create with a given placement commits on the host it lands on. */
export interface PlacementNeeds {
  /** pool bytes: the overlay at diskSizeGb plus the seed's reserve (a not-yet-cached image is not counted) */
  diskBytes: number;
  memoryBytes: number;
}

/** One host as measured now. */
export interface HostCapacity {
  host: string;
  pool: string;
  poolRunning: boolean;
  poolAvailableBytes: number;
  /** free memory as the host's kernel reports it (free + buffers + cached) */
  freeMemoryBytes: number;
  /** instances this provider manages on the host */
  managedInstances: number;
}

export interface HostCapacityReader {
  readonly policy: PlacementPolicy;
  /** the configured hosts, in config order */
  hosts(): string[];
  /** Throws ErrPermanent for a placement the provider cannot create (an unknown machine type or image), before any host is measured. */
  needs(placement: Placement): PlacementNeeds;
  /** Throws (classified) when the host cannot be read. */
  measure(host: string, options?: CallOptions): Promise<HostCapacity>;
}
