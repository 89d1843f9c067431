// Providers as the API shows them: each configured entry with the latest health of its targets
// (hosts), and the health history for the charts. A provider the config does not name is a 404;
// one that is configured but could not be built is a 503 for calls that need it running.
import type { HealthHistory, ProviderList } from '@/lib/api/providers';
import type { Provider } from '@/server/providers/contract';
import type { ConfigStatus } from '@/server/control/config-reload';
import type { Runtime } from '@/server/runtime';
import { ResourceNotFoundError, ResourceUnavailableError } from '@/server/errors';

export async function listProviders(runtime: Runtime): Promise<ProviderList> {
  return { providers: await runtime.providers.list() } satisfies ProviderList;
}

export function configuredProvider(runtime: Runtime, name: string): ConfigStatus['providers'][number] {
  const summary = runtime.configStatus().providers.find((entry) => entry.name === name);
  if (!summary) throw new ResourceNotFoundError('provider', name);
  return summary;
}

/** The running provider of that name (404 when not configured, 503 when configured but not running). */
export function runningProvider(runtime: Runtime, name: string): Provider {
  const summary = configuredProvider(runtime, name);
  const provider = runtime.providers.get(name);
  if (!provider) throw new ResourceUnavailableError(`provider ${JSON.stringify(name)} is not running${summary.reason ? `: ${summary.reason}` : ''}`);
  return provider;
}

export async function providerHealth(runtime: Runtime, query: { provider: string; sinceMs: number; target?: string }): Promise<HealthHistory> {
  configuredProvider(runtime, query.provider);
  const samples = await runtime.providers.history(query.provider, { sinceMs: query.sinceMs, ...(query.target ? { target: query.target } : {}) });
  return { provider: query.provider, since: new Date(query.sinceMs).toISOString(), samples } satisfies HealthHistory;
}
