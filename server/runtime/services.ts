// The services the HTTP routes may call, which every replica serves: the providers config, Proxies
// and sets of them, the providers' health, diagnosis, the hosts' inventories, stats, placement
// previews, the Add host wizard and the hosts in the config file, the cluster view, the consoles,
// and auth. They never see a control loop: what they
// change reaches the loops through `changes`, which the runtime routes to the leader.
import type { ClusterView } from '@/lib/api/cluster';
import type { ProviderCapabilities } from '@/lib/api/config';
import { authOptionsFromEnv } from '@/server/auth/access';
import { AuthService } from '@/server/auth/service';
import { clusterView } from '@/server/cluster/cluster-view';
import type { Leadership } from '@/server/cluster/leadership';
import type { Provider, Target } from '@/server/providers/contract';
import { builtInProviderTypes } from '@/server/providers/provider-types';
import type { Store } from '@/server/store';
import type { HealthSample } from '@/server/store/provider-health';
import { type Logger, logger as childLogger } from '@/server/telemetry/logger';
import type { Clock } from '@/server/control/clock';
import { ConfigManager } from '@/server/control/config-reload';
import { ConsoleManager } from '@/server/control/console-manager';
import { DiagnosisService } from '@/server/control/diagnosis';
import { HostViewService } from '@/server/control/host-view';
import type { LiveFeed } from '@/server/control/live-feed';
import { PlacementPreviewService } from '@/server/control/placement-preview';
import { checkPort } from '@/server/control/port-check';
import { probeProxy } from '@/server/control/probe';
import { proxiesOnHost } from '@/server/control/host-users';
import type { ProviderSet } from '@/server/control/provider-set';
import { ProxyService } from '@/server/control/proxy-service';
import { ProxySetService } from '@/server/control/proxy-set-service';
import { toProxyView } from '@/server/control/proxy-view';
import { type ConfiguredProvider, configuredProvider, runningProvider } from '@/server/control/running-provider';
import type { RuntimeSettings } from '@/server/control/settings';
import { StatsService } from '@/server/control/stats-service';
import type { GatewayService } from '@/server/gateway/gateway-service';
import type { Metrics } from '@/server/telemetry/metrics';
import { HostConfig } from '@/server/onboarding/host-config';
import { HostSetup } from '@/server/onboarding/host-setup';
import { builtInOnboarding } from '@/server/onboarding/onboarding-types';
import type { RuntimeOptions } from './create-runtime';

export interface ProviderSummary {
  name: string;
  type: string;
  /** false when the entry could not be built (see `reason`) */
  available: boolean;
  reason?: string;
  /** latest check per target, in the provider's order; empty before the first check */
  targets: Target[];
}

export interface ProvidersApi {
  list(): Promise<ProviderSummary[]>;
  /** every check since `sinceMs` (epoch ms), oldest first */
  history(name: string, options: { sinceMs: number; target?: string }): Promise<HealthSample[]>;
  /** the running provider, for calls the routes make themselves (host listings) */
  get(name: string): Provider | undefined;
  /** the config's entry of that name (404 when the config does not name it) */
  configured(name: string): ConfiguredProvider;
  /** the running provider of that name (404 when not configured, 503 when configured but not running) */
  running(name: string): Provider;
  /** what the dashboard may offer for providers of `type` (its registration and its onboarding declare it) */
  capabilities(type: string): ProviderCapabilities;
}

export interface ClusterApi {
  /** whether this replica runs the control loops now */
  isLeader(): boolean;
  view(): Promise<ClusterView>;
}

/** What the services tell the control loops; the runtime decides who acts on it. */
export interface ServiceChanges {
  proxyChanged(name: string): void;
  proxySetChanged(): void;
  configApplied(): void;
}

/** The test seams and defaults of RuntimeOptions, passed through. */
export interface ServicesOptions extends Pick<RuntimeOptions, 'registry' | 'configLoader' | 'probe' | 'portCheck' | 'auth'> {
  settings: RuntimeSettings;
  store: Store;
  clock: Clock;
  /** the control plane's logger; `root` for those that log under their own name */
  logger: Logger;
  root: Logger;
  providerSet: ProviderSet;
  leadership: Leadership;
  replica: { id: string; address: string };
  startedAtMs: number;
  live: LiveFeed;
  changes: ServiceChanges;
}

export interface RuntimeServices {
  readonly config: ConfigManager;
  readonly consoles: ConsoleManager;
  readonly proxies: ProxyService;
  readonly proxySets: ProxySetService;
  readonly providers: ProvidersApi;
  readonly diagnosis: DiagnosisService;
  /** a host's pools, images and domains, and image eviction */
  readonly hosts: HostViewService;
  readonly stats: StatsService;
  /** where automatic placement would put a Proxy or a set's members now */
  readonly placement: PlacementPreviewService;
  readonly hostSetup: HostSetup;
  readonly hostConfig: HostConfig;
  readonly cluster: ClusterApi;
  readonly auth: AuthService;
  readonly httpLogger: Logger;
}

/**
 * What a route handler is given (server/http/route.ts): the services, and beside them what every
 * replica serves that the runtime builds itself (the gateway's view, the live feed, the metrics).
 * Never the store or a control loop.
 */
export interface RouteServices extends RuntimeServices {
  readonly gateway: Pick<GatewayService, 'view'>;
  readonly live: LiveFeed;
  readonly metrics: Metrics;
}

/** Phases (as the API shows them) in which a Proxy's VM is still booting: boot capture holds its console. */
const bootingPhases = new Set(['Pending', 'Provisioning', 'Running']);

export function createServices(options: ServicesOptions): RuntimeServices {
  const { settings, store, clock, logger: log, root, providerSet, leadership, replica, startedAtMs, live, changes } = options;
  const registry = options.registry ?? builtInProviderTypes();
  const onboardingTypes = builtInOnboarding();
  const config = new ConfigManager({
    path: settings.providersConfigPath,
    loader: options.configLoader,
    registry,
    providers: providerSet,
    logger: log.child({ loop: 'config' }),
    providerLogger: root,
    clock,
    debounceMs: settings.configReloadDelayMs,
    // The connections themselves are fenced too: work already inside a provider method (a
    // download's cleanup after the step-down aborted it) must not reach a hypervisor either.
    mayAct: () => leadership.isLeader(),
    proxies: () => store.proxies.list(),
    onApplied: () => changes.configApplied(),
  });
  const providerNames = () => config.status().providers.map((entry) => entry.name);

  const consoles = new ConsoleManager({
    providers: providerSet,
    clock,
    logger: log.child({ component: 'consoles' }),
    idleReleaseMs: settings.consoleIdleReleaseMs,
    locate: async (name) => {
      const record = await store.proxies.get(name);
      if (!record) return { kind: 'missing' };
      if (record.spec.mode !== 'Managed') return { kind: 'static' };
      return { kind: 'managed', provider: record.spec.provider, ...(record.status.providerID ? { providerID: record.status.providerID } : {}) };
    },
    booting: async (name) => {
      const record = await store.proxies.get(name);
      return record !== undefined && bootingPhases.has(toProxyView(record).status.phase);
    },
  });

  const proxies = new ProxyService({ store, clock, providerNames, onChange: (name) => changes.proxyChanged(name) });
  const proxySets = new ProxySetService({
    store,
    clock,
    proxies,
    providerNames,
    // Another replica's change is seen by the leader's next pass of the set controller.
    onChange: (name) => {
      live.publish({ kind: 'proxyset', name });
      changes.proxySetChanged();
    },
  });

  const directory = { entries: () => config.status().providers, get: (name: string) => providerSet.get(name) };
  const providers: ProvidersApi = {
    list: async () => {
      const latest = new Map((await store.health.latest()).map((health) => [health.provider, health.targets]));
      return config.status().providers.map((entry) => ({ ...entry, targets: latest.get(entry.name) ?? [] }));
    },
    history: (name, query) => store.health.history({ provider: name, ...query }),
    get: (name) => providerSet.get(name),
    configured: (name) => configuredProvider(directory, name),
    running: (name) => runningProvider(directory, name),
    capabilities: (type) => ({ ...registry.capabilities(type), setup: onboardingTypes.has(type) }),
  };
  const diagnosis = new DiagnosisService({
    proxy: (name) => proxies.get(name),
    providers: { get: providers.get, summary: async (name) => (await providers.list()).find((entry) => entry.name === name) },
    // The boot capture's ring buffer: cloud-init's console lines, when it got that far.
    consoleLog: (proxyName) => consoles.consoleLog(proxyName),
    probe: options.probe ?? probeProxy,
    portCheck: options.portCheck ?? checkPort,
    probeUrl: settings.probeUrl,
    ipEchoUrl: settings.ipEchoUrl,
    probeTimeoutMs: settings.probeTimeoutMs,
    clock,
  });

  const stats = new StatsService({ store, sampleIntervalMs: settings.statsSampleIntervalMs, running: providers.running, clock });
  const placement = new PlacementPreviewService({ running: providers.running, health: store.health, clock });

  const hostSetup = new HostSetup({
    types: onboardingTypes,
    configPath: settings.providersConfigPath,
    entries: () => config.currentEntries(),
    logger: log.child({ component: 'host-setup' }),
  });
  const hostConfig = new HostConfig({
    configPath: settings.providersConfigPath,
    setup: hostSetup,
    proxiesOnHost: async (target) => proxiesOnHost(await store.proxies.list(), target),
    reload: () => config.reload(),
    logger: log.child({ component: 'host-config' }),
  });

  const cluster: ClusterApi = {
    isLeader: () => leadership.isLeader(),
    view: () => clusterView({ store, leadership, replica, startedAtMs, leaseMs: settings.leaderLeaseMs, nowMs: clock.now() }),
  };

  const hosts = new HostViewService({ running: providers.running, proxies: () => store.proxies.list(), isLeader: () => cluster.isLeader() });

  // Its start announces the first-start setup code in the log.
  const auth = new AuthService({ logger: childLogger('auth', root), ...(options.auth ?? authOptionsFromEnv()), db: store.sql });
  const httpLogger = childLogger('http', root);

  return { config, consoles, proxies, proxySets, providers, diagnosis, hosts, stats, placement, hostSetup, hostConfig, cluster, auth, httpLogger };
}
