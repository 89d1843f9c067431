// Live progress of the base-image download a Managed Proxy is waiting on, from its provider's
// host inventory. Nothing running (or a provider without host inventory) reads as `null`.
import type { ProxyDownload } from '@/lib/api/proxies';
import type { RouteServices } from '@/server/runtime';

export async function proxyDownload(services: RouteServices, name: string): Promise<ProxyDownload> {
  const view = await services.proxies.get(name);
  if (view.mode !== 'Managed' || !view.provider || !view.placement) return { download: null };
  const inventory = services.providers.get(view.provider)?.inventory;
  // An automatically placed Proxy downloads on the host chosen for it.
  const zone = view.status.chosenPlacement?.zone ?? view.placement.zone;
  return { download: inventory?.placementDownload({ ...view.placement, ...(zone ? { zone } : {}) }) ?? null } satisfies ProxyDownload;
}
