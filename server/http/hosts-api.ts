// One host of a provider as the dashboard shows it: pools, cached base images with the domains
// backing onto each, and every domain with its kind (ours with its Proxy, ours but orphaned, the
// first-generation provider's, or foreign), plus the base-image downloads running there; and
// eviction of a cached image. Only kvm2 providers have hosts to list.
import type { Runtime } from '@/server/runtime';
import type { DownloadProgress } from '@/server/providers/kvm2/download-progress';
import { evictCachedImage, listHost, type CachedImageListing, type DomainListing, type EvictOutcome, type PoolListing } from '@/server/providers/kvm2/inventory';
import { isKvm2Provider, type Kvm2Provider } from '@/server/providers/kvm2/provider';
import type { ProxyRecord } from '@/server/store';
import { UnsupportedOperationError } from './errors';
import { runningProvider } from './providers-api';

export type DomainKind = 'managed' | 'orphaned' | 'kvm-gen-1' | 'foreign';

export interface DomainView {
  name: string;
  state: string;
  kind: DomainKind;
  /** the owning Proxy, for kind managed */
  proxy?: string;
  ip?: string;
  /** the owner uid on kvm2's mark (managed and orphaned) */
  uid?: string;
  created?: string;
  /** why the domain is not what it looks like (an unreadable kvm2 mark, a state that could not be read) */
  note?: string;
}

export interface CachedImageView extends Omit<CachedImageListing, 'domains'> {
  /** how many domains on this host back onto the image */
  usedBy: number;
  domains: string[];
}

export interface HostInventoryView {
  provider: string;
  host: string;
  pool: string;
  pools: PoolListing[];
  images: CachedImageView[];
  domains: DomainView[];
  downloads: DownloadProgress[];
}

function kvm2Provider(runtime: Runtime, name: string): Kvm2Provider {
  const provider = runningProvider(runtime, name);
  if (!isKvm2Provider(provider)) {
    throw new UnsupportedOperationError(`provider ${JSON.stringify(name)} is of type ${provider.type}, which has no hosts to list`);
  }
  return provider;
}

function domainView(domain: DomainListing, proxies: ReadonlyMap<string, ProxyRecord>): DomainView {
  const base = { name: domain.name, state: domain.state, ...(domain.markProblem ? { note: domain.markProblem } : {}) };
  const mark = domain.mark;
  if (mark?.managed) {
    const owner = mark.uid ? proxies.get(mark.uid) : undefined;
    const marked = { uid: mark.uid, ...(mark.created ? { created: mark.created } : {}) };
    if (!owner) return { ...base, ...marked, kind: 'orphaned' };
    return { ...base, ...marked, kind: 'managed', proxy: owner.name, ...(owner.status.ip ? { ip: owner.status.ip } : {}) };
  }
  return { ...base, kind: domain.gen1 && !mark ? 'kvm-gen-1' : 'foreign' };
}

export async function hostInventory(runtime: Runtime, target: { provider: string; host: string }): Promise<HostInventoryView> {
  const provider = kvm2Provider(runtime, target.provider);
  // No overall deadline: every RPC carries its budget, and abandoning one would kill the pooled
  // connection the reconciler shares.
  const listing = await listHost({ settings: provider.settings, backend: provider.backend, host: target.host });
  const proxies = new Map(runtime.store.proxies.list().map((record) => [record.uid, record]));
  return {
    provider: provider.name,
    host: listing.host,
    pool: listing.pool,
    pools: listing.pools,
    images: listing.images.map((image) => ({ ...image, usedBy: image.domains.length })),
    domains: listing.domains.map((domain) => domainView(domain, proxies)),
    downloads: provider.downloads.list().filter((download) => download.host === listing.host),
  };
}

export function evictImage(runtime: Runtime, target: { provider: string; host: string; volume: string }): Promise<EvictOutcome> {
  const provider = kvm2Provider(runtime, target.provider);
  return evictCachedImage({ settings: provider.settings, backend: provider.backend, host: target.host, volume: target.volume });
}
