// GET /api/config: the validated providers config as the dashboard needs it (each entry, whether
// it runs, what the dashboard may offer for it, and for providers with host inventory the catalogue
// the create form offers) and the last reload error. The catalogue never carries key or known_hosts
// paths, vendor data, or image URLs with credentials or query strings (the provider strips them).
import type { ConfigSummary } from '@/lib/api/config';
import type { RouteServices } from '@/server/runtime';

export function configSummary(services: RouteServices): ConfigSummary {
  const status = services.config.status();
  return {
    ...status,
    providers: status.providers.map((entry) => {
      const described = { ...entry, capabilities: services.providers.capabilities(entry.type) };
      const inventory = services.providers.get(entry.name)?.inventory;
      return inventory ? { ...described, catalogue: inventory.catalogue() } : described;
    }),
  } satisfies ConfigSummary;
}
