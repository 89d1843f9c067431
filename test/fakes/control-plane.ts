// Test wiring for the control plane: a store in a temp directory, a provider set holding fakes,
// the reconciler and the Proxy service over them, and spec builders.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProxyCreateInput } from '@/lib/proxy-spec';
import { systemClock, type Clock } from '@/server/control/clock';
import { ProviderSet } from '@/server/control/provider-set';
import { ProxyService } from '@/server/control/proxy-service';
import { Reconciler, type ReconcilerOptions } from '@/server/control/reconciler';
import type { Provider } from '@/server/providers/contract';
import { openStore, type Store } from '@/server/store';
import { createLogger, type Logger } from '@/server/telemetry/logger';
import { createMetrics, type Metrics } from '@/server/telemetry/metrics';

export const silentLogger = (): Logger => createLogger({ level: 'silent' });

export function tempDir(prefix = 'control-plane-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function providerSetOf(providers: Provider[], version = 'v1'): Promise<ProviderSet> {
  const set = new ProviderSet();
  await set.replace({ handles: new Map(providers.map((provider) => [provider.name, { provider }])), unavailable: new Map(), version });
  return set;
}

export interface Harness {
  store: Store;
  providers: ProviderSet;
  /** the current reconciler (restart replaces it) */
  readonly reconciler: Reconciler;
  proxies: ProxyService;
  metrics: Metrics;
  /** runs the reconciler until nothing is due now */
  settle: () => Promise<void>;
  /** stops the reconciler, as a process kill would, without touching the store */
  pause: () => Promise<void>;
  /** a new reconciler over the same store and providers, as after a restart */
  restart: () => Promise<void>;
  close: () => Promise<void>;
}

export async function controlPlane(options: { providers: Provider[]; clock?: Clock } & Partial<Omit<ReconcilerOptions, 'providers'>>): Promise<Harness> {
  const { providers: list, clock: givenClock, ...overrides } = options;
  const dir = tempDir();
  const store = await openStore({ dataDir: dir.path });
  const providers = await providerSetOf(list);
  const metrics = createMetrics();
  const clock = givenClock ?? systemClock;
  const build = () =>
    new Reconciler({
      store,
      providers,
      clock,
      metrics,
      logger: silentLogger(),
      workers: 3,
      backoff: { baseMs: 1_000, capMs: 300_000 },
      resyncIntervalMs: 60_000,
      quotaRetryMs: 300_000,
      provisioningPollMs: 10_000,
      ...overrides,
    });
  let reconciler = build();
  const proxies = new ProxyService({ store, clock, providerNames: () => providers.names(), onChange: (name) => reconciler.enqueue(name) });
  reconciler.start();
  return {
    store,
    providers,
    get reconciler() {
      return reconciler;
    },
    proxies,
    metrics,
    settle: () => reconciler.idle(),
    pause: () => reconciler.stop(),
    restart: async () => {
      await reconciler.stop();
      reconciler = build();
      reconciler.start();
    },
    close: async () => {
      await reconciler.stop();
      await store.close();
      dir.remove();
    },
  };
}

export function managedProxy(name: string, overrides: Partial<Extract<ProxyCreateInput, { mode: 'Managed' }>> = {}): ProxyCreateInput {
  return {
    name,
    mode: 'Managed',
    provider: 'fake-1',
    placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' },
    cloudInit: '#cloud-config\npackages: [squid]\n',
    ...overrides,
  };
}

/** The update body that keeps everything of `created` but what `changes` says. */
export function updateOf(created: ProxyCreateInput, changes: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, ...spec } = created;
  return { ...spec, ...changes };
}
