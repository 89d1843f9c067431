// GET /api/config: the validated providers config as the dashboard needs it (each entry, whether
// it runs, and for kvm2 the catalogue the create form offers: hosts, images, machine types) and
// the last reload error. Never the key or known_hosts files' paths or content, never vendorData,
// and image URLs without credentials or query strings.
import type { ConfigStatus } from '@/server/control/config-reload';
import { isKvm2Provider } from '@/server/providers/kvm2/provider';
import type { Kvm2Settings } from '@/server/providers/kvm2/kvm2';
import type { Runtime } from '@/server/runtime';

export interface Kvm2Catalogue {
  hosts: Array<{ name: string; address: string; user: string; pool: string; bridge: string; virtType: string }>;
  images: Array<{ key: string; url: string; format: string; firmware: string; sha256?: string }>;
  machineTypes: Array<{ name: string; vcpus: number; memoryMiB: number }>;
  diskSizeGb: number;
}

export interface ConfigSummary extends Omit<ConfigStatus, 'providers'> {
  providers: Array<ConfigStatus['providers'][number] & Partial<Kvm2Catalogue>>;
}

/** The URL with user, password, query and fragment removed: signed mirror URLs carry tokens there. */
export function publicUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString();
  } catch {
    return '';
  }
}

function catalogue(settings: Kvm2Settings): Kvm2Catalogue {
  return {
    hosts: settings.hosts.map((host) => ({ name: host.name, address: host.address, user: host.user, pool: host.pool, bridge: host.bridge, virtType: host.virtType })),
    images: [...settings.images].map(([key, image]) => ({
      key,
      url: publicUrl(image.url),
      format: image.format,
      firmware: image.firmware,
      ...(image.sha256 ? { sha256: image.sha256 } : {}),
    })),
    machineTypes: [...settings.machineTypes].map(([name, type]) => ({ name, vcpus: type.vcpus, memoryMiB: type.memoryMiB })),
    diskSizeGb: settings.diskSizeGb,
  };
}

export function configSummary(runtime: Runtime): ConfigSummary {
  const status = runtime.configStatus();
  return {
    ...status,
    providers: status.providers.map((entry) => {
      const provider = runtime.providers.get(entry.name);
      return isKvm2Provider(provider) ? { ...entry, ...catalogue(provider.settings) } : entry;
    }),
  };
}
