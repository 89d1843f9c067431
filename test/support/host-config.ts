// The dashboard's host saves over a providers.yaml on disk, as the runtime wires them: the wizard's
// HostSetup reading the file for its entries, and HostConfig asking the test which Proxies use a host
// and counting the reloads a save triggers; plus the Proxy records a test puts on a host.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { proxiesOnHost } from '@/server/control/host-users';
import { HostConfig } from '@/server/onboarding/host-config';
import { HostSetup } from '@/server/onboarding/host-setup';
import { builtInOnboarding } from '@/server/onboarding/onboarding-types';
import { parseProvidersConfig } from '@/server/providers/config';
import type { ProxyRecord } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { tempDir } from '@/test/fakes/control-plane';

/** One test's providers.yaml and the saves over it; a test sets `proxies` and reads `reloads`. */
export interface HostConfigFile {
  /** the temp directory the file is in */
  dir: string;
  path: string;
  /** the file as written before the test */
  text: string;
  proxies: ProxyRecord[];
  reloads: number;
  setup: HostSetup;
  hosts: HostConfig;
}

/** Before each test of the file: `yaml(dir)` written to providers.yaml in a fresh temp dir, no Proxies, no reloads; the dir removed after. */
export function hostConfigFileEachTest(prefix: string, yaml: (dir: string) => string): HostConfigFile {
  const file = {} as HostConfigFile;
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir(prefix);
    file.dir = dir.path;
    file.path = join(dir.path, 'providers.yaml');
    file.text = yaml(dir.path);
    writeFileSync(file.path, file.text);
    file.proxies = [];
    file.reloads = 0;
    const configPath = file.path;
    const logger = createLogger({ level: 'silent' });
    file.setup = new HostSetup({ types: builtInOnboarding(), configPath, entries: () => parseProvidersConfig(readFileSync(configPath, 'utf8')), logger });
    file.hosts = new HostConfig({
      configPath,
      setup: file.setup,
      proxiesOnHost: async (target) => proxiesOnHost(file.proxies, target),
      reload: async () => {
        file.reloads += 1;
        return true;
      },
      logger,
    });
  });
  afterEach(() => dir.remove());
  return file;
}

/** A Running Managed Proxy on `host`: placed there by its zone, or (byInstance) only by the host the reconciler recorded. */
export function proxyRecordOn(name: string, host: string, options: { byInstance?: boolean } = {}): ProxyRecord {
  return {
    uid: `uid-${name}`,
    name,
    spec: {
      mode: 'Managed',
      provider: 'home',
      placement: { ...(options.byInstance ? {} : { zone: host }), machineType: 'small', image: 'debian' },
      port: 3128,
      labels: {},
      cloudInit: '',
    },
    // The instance's host as the reconciler recorded it; the providerID is the provider's own business.
    status: { phase: 'Running', conditions: [], ...(options.byInstance ? { providerID: `opaque-${name}`, host } : {}) },
    generation: 1,
    createdAt: '',
    updatedAt: '',
  } as ProxyRecord;
}
