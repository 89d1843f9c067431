// Live progress of the base-image download a Managed Proxy is waiting on: its placement names
// the host and the image, which name the base volume the kvm2 provider is fetching. Nothing is
// running (or the Proxy is not on a kvm2 provider) reads as `null`.
import type { DownloadProgress } from '@/server/providers/kvm2/download-progress';
import { resolveImage } from '@/server/providers/kvm2/image-resolve';
import { host as placementHost } from '@/server/providers/kvm2/kvm2';
import { isKvm2Provider } from '@/server/providers/kvm2/provider';
import type { Runtime } from '@/server/runtime';

export function proxyDownload(runtime: Runtime, name: string): { download: DownloadProgress | null } {
  const view = runtime.proxies.get(name);
  if (view.mode !== 'Managed' || !view.provider || !view.placement) return { download: null };
  const provider = runtime.providers.get(view.provider);
  if (!isKvm2Provider(provider)) return { download: null };
  try {
    const host = placementHost(provider.settings, view.placement.zone);
    const image = resolveImage(provider.settings, view.placement.image);
    return { download: provider.downloads.get(host.name, image.baseVolume) ?? null };
  } catch {
    // A placement the provider refuses has no download; the Proxy's status says why.
    return { download: null };
  }
}
