// Shared by the api-*.test.ts lab tests and the lab's no-secret-leaks test: the process runtime
// over the lab's real hosts through a kvm2 entry of this run's own (so its base images never meet
// another test's), the auth service with an admin password set, the route handlers called as the
// dashboard calls them, every response body and log line kept, and cleanup of every Proxy,
// domain and volume the run caused. Orphan GC never runs here: the lab's libvirtd is shared, and
// GC would take other runs' domains for orphans of this store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import type { AuthService } from '@/server/auth/service';
import { instanceName } from '@/server/control/names';
import { settingsFromEnv } from '@/server/control/settings';
import type { Kvm2Entry } from '@/server/providers/config';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { ProviderRegistry } from '@/server/providers/registry';
import { type Runtime, startRuntimeOnce, stopRuntimeForTests } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { adminPassword, cheapCost, createClient, type Client, setUpPassword } from '@/test/unit/api-harness';
import { type Lab, removeDomain, removeVolume } from './harness/lab';
import { Kvm2LabRun } from './kvm2-provider-support';

export interface LabApi extends Client {
  lab: Lab;
  runtime: Runtime;
  auth: AuthService;
  /** the run's provider entry name (`t-<hex>`), part of its base image names */
  entryName: string;
  session: string;
  responses: string[];
  logs: string[];
  /** a Proxy name of this run; its domain is removed at close whatever happens */
  proxyName(what: string): string;
  /** stops the app's runtime and starts a new one over the same store, as a server restart does */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startLabApi(lab: Lab): Promise<LabApi> {
  const run = new Kvm2LabRun(lab);
  const entry: Kvm2Entry = run.entry();
  const dir = mkdtempSync(join(tmpdir(), 'api-lab-'));
  const logs: string[] = [];
  const logger = createLogger({ level: 'trace', destination: { write: (line: string) => void logs.push(line) } });
  const registry = new ProviderRegistry();
  registry.register('kvm2', (given, context) => {
    const provider = createKvm2Provider({ entry: given as Kvm2Entry, logger: context.logger });
    return { provider, close: () => provider.close() };
  });
  const never = '20d';
  const options = {
    settings: settingsFromEnv({
      DATA_DIR: dir,
      PROVIDERS_CONFIG: join(dir, 'providers.yaml'),
      GC_INTERVAL: never,
      PROVIDER_CHECK_INTERVAL: never,
      PROBE_INTERVAL: never,
      RESYNC_INTERVAL: never,
      PROVISIONING_POLL_INTERVAL: '2s',
      RECONCILE_BACKOFF_BASE: '500ms',
      RECONCILE_BACKOFF_CAP: '5s',
    }),
    registry,
    configLoader: async () => [entry],
    logger,
    metrics: createMetrics(),
    auth: { cost: cheapCost },
  };
  let runtime = await startRuntimeOnce(options);
  await setUpPassword(runtime.services.auth, adminPassword);
  const responses: string[] = [];
  let session = '';
  const client = createClient({ responses, session: () => session, defaultPassword: adminPassword });
  session = await client.logIn();
  const proxyNames = new Set<string>();

  return {
    ...client,
    lab,
    get runtime() {
      return runtime;
    },
    get auth() {
      return runtime.services.auth;
    },
    entryName: run.entryName,
    get session() {
      return session;
    },
    responses,
    logs,
    proxyName(what) {
      const name = `api-${run.entryName.slice(2)}-${what}`;
      proxyNames.add(name);
      return name;
    },
    async restart() {
      await stopRuntimeForTests();
      runtime = await startRuntimeOnce(options);
    },
    async close() {
      // Deleting through the control plane removes domain, overlay and seed; whatever is left after
      // a minute (a failed test) goes by hand.
      for (const name of proxyNames) if (await runtime.store.proxies.get(name)) await runtime.services.proxies.delete(name);
      await vi
        .waitFor(
          async () =>
            expect(new Set((await runtime.store.proxies.names()).filter((name) => proxyNames.has(name))), 'the run’s Proxies to go').toEqual(new Set()),
          { timeout: 60_000, interval: 500 },
        )
        .catch(() => undefined);
      await stopRuntimeForTests();
      for (const name of proxyNames) {
        const domain = instanceName(name);
        await removeDomain(domain).catch(() => undefined);
        for (const volume of [`${domain}.qcow2`, `${domain}-seed.iso`]) await removeVolume(lab.pool.name, volume).catch(() => undefined);
      }
      await run.cleanUp();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
