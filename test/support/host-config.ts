// The dashboard's host saves over a providers.yaml on disk, as the runtime wires them: the wizard's
// HostSetup reading the file for its entries, and HostConfig asking the test which Proxies use a host
// and counting the reloads a save triggers.
import { readFileSync } from 'node:fs';
import { proxiesOnHost } from '@/server/control/host-users';
import { HostConfig } from '@/server/onboarding/host-config';
import { HostSetup } from '@/server/onboarding/host-setup';
import { builtInOnboarding } from '@/server/onboarding/onboarding-types';
import { parseProvidersConfig } from '@/server/providers/config';
import type { ProxyRecord } from '@/server/store';
import type { Logger } from '@/server/telemetry/logger';

export interface HostConfigOptions {
  /** the providers.yaml the saves edit */
  configPath: string;
  /** the Proxies in the store at the time of the save */
  proxies: () => ProxyRecord[];
  /** called once per reload the save asks for */
  reloaded: () => void;
  logger: Logger;
}

export function hostConfigOver(options: HostConfigOptions): { setup: HostSetup; hosts: HostConfig } {
  const { configPath, logger } = options;
  const setup = new HostSetup({ types: builtInOnboarding(), configPath, entries: () => parseProvidersConfig(readFileSync(configPath, 'utf8')), logger });
  const hosts = new HostConfig({
    configPath,
    setup,
    proxiesOnHost: async (target) => proxiesOnHost(options.proxies(), target),
    reload: async () => {
      options.reloaded();
      return true;
    },
    logger,
  });
  return { setup, hosts };
}
