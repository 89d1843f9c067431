// Providers as the API shows them: each configured entry with the latest health of its targets
// (hosts), and the health history for the charts. A provider the config does not name is a 404.
import type { HealthHistory, ProviderList } from '@/lib/api/providers';
import type { RouteServices } from '@/server/runtime';

export async function listProviders(services: RouteServices): Promise<ProviderList> {
  return { providers: await services.providers.list() } satisfies ProviderList;
}

export async function providerHealth(services: RouteServices, query: { provider: string; sinceMs: number; target?: string }): Promise<HealthHistory> {
  services.providers.configured(query.provider);
  const samples = await services.providers.history(query.provider, { sinceMs: query.sinceMs, ...(query.target ? { target: query.target } : {}) });
  return { provider: query.provider, since: new Date(query.sinceMs).toISOString(), samples } satisfies HealthHistory;
}
