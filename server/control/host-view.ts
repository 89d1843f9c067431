// One host of a provider as the dashboard shows it: pools, cached base images with the domains
// backing onto each, and every domain with its kind (ours with its Proxy, ours but orphaned, the
// first-generation provider's, or foreign), plus the base-image downloads running there; and
// eviction of a cached image (on the leader only). Only providers with the host-inventory
// capability have hosts to list.
import type { DomainView, EvictOutcomeView, HostInventoryView } from '@/lib/api/providers';
import { ResourceUnavailableError, UnsupportedOperationError } from '@/server/errors';
import type { Provider } from '@/server/providers/contract';
import type { DomainListing, HostInventory } from '@/server/providers/host-inventory';
import type { ProxyRecord } from '@/server/store';

export interface HostViewOptions {
  /** the running provider of that name (404 when not configured, 503 when not running) */
  running(name: string): Provider;
  proxies(): Promise<ProxyRecord[]>;
  /** whether this replica leads: only the leader evicts images */
  isLeader(): boolean;
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

export class HostViewService {
  constructor(private readonly options: HostViewOptions) {}

  async inventory(target: { provider: string; host: string }): Promise<HostInventoryView> {
    const inventory = this.inventoryOf(target.provider);
    const listing = await inventory.listHost(target.host);
    const proxies = new Map((await this.options.proxies()).map((record) => [record.uid, record]));
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

  /**
   * Eviction deletes volumes on a hypervisor, so only the leader does it: its image locks are the
   * ones its Creates and downloads hold, and another replica's would not see them.
   */
  async evictImage(target: { provider: string; host: string; volume: string }): Promise<EvictOutcomeView> {
    if (!this.options.isLeader()) {
      throw new ResourceUnavailableError(
        'this replica does not lead: evicting an image is served by the leader (GET /api/cluster names it); nothing was deleted',
      );
    }
    return (await this.inventoryOf(target.provider).evictImage({ host: target.host, volume: target.volume })) satisfies EvictOutcomeView;
  }

  private inventoryOf(name: string): HostInventory {
    const provider = this.options.running(name);
    if (!provider.inventory) {
      throw new UnsupportedOperationError(`provider ${JSON.stringify(name)} is of type ${provider.type}, which has no hosts to list`);
    }
    return provider.inventory;
  }
}
