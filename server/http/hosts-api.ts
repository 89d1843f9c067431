// One host of a provider as the dashboard shows it: pools, cached base images with the domains
// backing onto each, and every domain with its kind (ours with its Proxy, ours but orphaned, the
// first-generation provider's, or foreign), plus the base-image downloads running there; and
// eviction of a cached image. Only providers with the host-inventory capability have hosts to list.
import type { DomainView, EvictOutcomeView, HostInventoryView } from '@/lib/api/providers';
import type { DomainListing, HostInventory } from '@/server/providers/host-inventory';
import type { Runtime } from '@/server/runtime';
import type { ProxyRecord } from '@/server/store';
import { UnsupportedOperationError } from './errors';
import { runningProvider } from './providers-api';

function inventoryOf(runtime: Runtime, name: string): HostInventory {
  const provider = runningProvider(runtime, name);
  if (!provider.inventory) {
    throw new UnsupportedOperationError(`provider ${JSON.stringify(name)} is of type ${provider.type}, which has no hosts to list`);
  }
  return provider.inventory;
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
  const inventory = inventoryOf(runtime, target.provider);
  const listing = await inventory.listHost(target.host);
  const proxies = new Map((await runtime.store.proxies.list()).map((record) => [record.uid, record]));
  return {
    provider: target.provider,
    host: listing.host,
    pool: listing.pool,
    pools: listing.pools,
    images: listing.images.map((image) => ({ ...image, usedBy: image.domains.length })),
    domains: listing.domains.map((domain) => domainView(domain, proxies)),
    downloads: inventory.downloads(listing.host),
  } satisfies HostInventoryView;
}

export async function evictImage(runtime: Runtime, target: { provider: string; host: string; volume: string }): Promise<EvictOutcomeView> {
  return (await inventoryOf(runtime, target.provider).evictImage({ host: target.host, volume: target.volume })) satisfies EvictOutcomeView;
}
