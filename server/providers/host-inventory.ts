// An optional capability of the provider contract: providers whose instances live on hosts the
// admin owns (kvm2) can list a host (pools, cached base images, domains), evict a cached image,
// report the base-image downloads running for a placement, and offer the catalogue the create
// form needs. The HTTP layer reaches host listings through this interface only.
import type { CallOptions, Placement } from './contract';

export interface PoolListing {
  name: string;
  /** virsh's word: running, inactive, building, degraded, inaccessible */
  state: string;
  capacityBytes: number;
  allocationBytes: number;
  availableBytes: number;
  /** the pool the provider uses on this host */
  configured: boolean;
}

export interface CachedImageListing {
  /** the base volume's name (also its marker's name without `.sha256`) */
  volume: string;
  markerVolume: string;
  entry: string;
  key: string;
  format: string;
  sizeBytes?: number;
  allocationBytes?: number;
  /** the digest the marker holds */
  sha256?: string;
  /** base and a marker holding a digest: what Create reuses */
  complete: boolean;
  baseExists: boolean;
  markerExists: boolean;
  /** domains on this host backing onto the base */
  domains: string[];
}

/** The provider's own mark on an instance it made. */
export interface InstanceMark {
  managed: boolean;
  /** the owning Proxy's UID; empty when the mark carries none */
  uid: string;
  /** RFC 3339; empty when the mark carries none */
  created: string;
}

export interface DomainListing {
  name: string;
  /** virsh's word, e.g. running, shut off; `unknown` when it could not be read */
  state: string;
  mark?: InstanceMark;
  /** why a mark that is there could not be read */
  markProblem?: string;
  /** made by the first-generation provider (which this one never touches) */
  gen1: boolean;
}

export interface HostListing {
  host: string;
  pool: string;
  pools: PoolListing[];
  images: CachedImageListing[];
  domains: DomainListing[];
}

export interface EvictOutcome {
  host: string;
  volume: string;
  /** volumes deleted, in order (marker first) */
  removed: string[];
}

/** One base-image download while it runs. */
export interface DownloadProgress {
  host: string;
  volume: string;
  /** the image URL's host only */
  urlHost: string;
  totalBytes: number;
  doneBytes: number;
  startedAt: number;
  /** bytes per second since the start; 0 until the first chunk */
  bytesPerSecond: number;
  /** seconds left at the current rate, or null while unknown */
  etaSeconds: number | null;
}

/** What the create form offers for this provider; image URLs without credentials or query. */
export interface Catalogue {
  hosts: Array<{ name: string; address: string; user: string; pool: string; bridge: string; virtType: string }>;
  images: Array<{ key: string; url: string; format: string; firmware: string; sha256?: string }>;
  machineTypes: Array<{ name: string; vcpus: number; memoryMiB: number }>;
  diskSizeGb: number;
}

export interface HostInventory {
  /** Throws ERR_HOST_NOT_FOUND for a host the provider does not configure. */
  listHost(host: string, options?: CallOptions): Promise<HostListing>;
  /** Marker first, then the base; ERR_IMAGE_IN_USE while a domain on the host backs onto it. */
  evictImage(target: { host: string; volume: string }, options?: CallOptions): Promise<EvictOutcome>;
  /** Downloads running on `host`. */
  downloads(host: string): DownloadProgress[];
  /** The download a Create with this placement waits on; undefined when none runs or the placement is refused. */
  placementDownload(placement: Placement): DownloadProgress | undefined;
  catalogue(): Catalogue;
}
