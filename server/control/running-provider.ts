// The provider a request names, looked up the way every service answers for it: a name the config
// does not have is a 404; one that is configured but not running (it could not be built) a 503
// that says why.
import { ResourceNotFoundError, ResourceUnavailableError } from '@/server/errors';
import type { Provider } from '@/server/providers/contract';
import type { ConfigStatus } from './config-reload';

export type ConfiguredProvider = ConfigStatus['providers'][number];

export interface ProviderDirectory {
  /** the config's entries, each with whether it runs and why not */
  entries(): ConfiguredProvider[];
  get(name: string): Provider | undefined;
}

/** The config's entry of that name (404 when the config does not name it). */
export function configuredProvider(directory: ProviderDirectory, name: string): ConfiguredProvider {
  const entry = directory.entries().find((candidate) => candidate.name === name);
  if (!entry) throw new ResourceNotFoundError('provider', name);
  return entry;
}

/** The running provider of that name (404 when not configured, 503 when configured but not running). */
export function runningProvider(directory: ProviderDirectory, name: string): Provider {
  const entry = configuredProvider(directory, name);
  const provider = directory.get(name);
  if (!provider) throw new ResourceUnavailableError(`provider ${JSON.stringify(name)} is not running${entry.reason ? `: ${entry.reason}` : ''}`);
  return provider;
}
