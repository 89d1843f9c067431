// The composition root: settings → store → providers (from the providers config, through the
// registry) → control loops (reconciler, provider health monitor, orphan GC, proxy probes,
// housekeeping, stats sampler), which run only while this replica leads (server/cluster) → the
// services the HTTP routes call, which every replica serves. All process state lives here (the auth
// service, the HTTP logger, the provider registry, each provider's caches): Next bundles each route
// separately, so module-level state would be per bundle. The process's one instance: singleton.ts.
import type { ClusterView } from '@/lib/api/cluster';
import { authOptionsFromEnv } from '@/server/auth/access';
import { AdvisoryLockLeadership } from '@/server/cluster/advisory-lock';
import { clusterView } from '@/server/cluster/cluster-view';
import { FencedProviders } from '@/server/cluster/fenced-providers';
import { LeaderLoops } from '@/server/cluster/leader-loops';
import { type Leadership, SingleReplica } from '@/server/cluster/leadership';
import { AuthService, type AuthServiceOptions } from '@/server/auth/service';
import type { Provider, Target } from '@/server/providers/contract';
import { builtInProviderTypes } from '@/server/providers/provider-types';
import type { ProviderRegistry } from '@/server/providers/registry';
import { createStore, type Store } from '@/server/store';
import type { HealthSample } from '@/server/store/provider-health';
import { type Logger, logger as childLogger, rootLogger } from '@/server/telemetry/logger';
import { type Metrics, processMetrics } from '@/server/telemetry/metrics';
import { redactUrl } from '@/server/telemetry/redact-url';
import { type Clock, systemClock } from '@/server/control/clock';
import { type ConfigLoader, ConfigManager, type ConfigStatus } from '@/server/control/config-reload';
import { ConsoleManager } from '@/server/control/console-manager';
import { DiagnosisService } from '@/server/control/diagnosis';
import { OrphanCollector } from '@/server/control/gc';
import { Housekeeping } from '@/server/control/housekeeping';
import { InstanceEvents } from '@/server/control/instance-events';
import { LiveFeed } from '@/server/control/live-feed';
import { publishHealth, publishInstanceChange, publishProxyWrites } from '@/server/control/live-publishers';
import { Monitor } from '@/server/control/monitor';
import { errorMessage } from '@/server/control/pass';
import { type PortCheck, checkPort } from '@/server/control/port-check';
import { probeProxy } from '@/server/control/probe';
import { Prober, type ProberOptions } from '@/server/control/prober';
import { HostConfig } from '@/server/control/host-config';
import { HostSetup } from '@/server/control/host-setup';
import { ProviderSet } from '@/server/control/provider-set';
import { ProxyService } from '@/server/control/proxy-service';
import { ProxySetController } from '@/server/control/proxy-set-controller';
import { ProxySetService } from '@/server/control/proxy-set-service';
import { toProxyView } from '@/server/control/proxy-view';
import { Reconciler } from '@/server/control/reconciler';
import { Sampler } from '@/server/control/sampler';
import type { RuntimeSettings } from '@/server/control/settings';

export interface RuntimeOptions {
  settings: RuntimeSettings;
  registry?: ProviderRegistry;
  /** reads and validates the providers config; the real loader (server/providers/config) by default */
  configLoader?: ConfigLoader;
  clock?: Clock;
  logger?: Logger;
  metrics?: Metrics;
  /** replaces the HTTP probe (tests) */
  probe?: ProberOptions['probe'];
  /** replaces the diagnosis's TCP check of the proxy port (tests) */
  portCheck?: PortCheck;
  /** the admin password from the environment, scrypt cost, clock; ADMIN_PASSWORD by default */
  auth?: Omit<AuthServiceOptions, 'db'>;
}

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
}

export interface ClusterApi {
  /** whether this replica runs the control loops now */
  isLeader(): boolean;
  view(): Promise<ClusterView>;
}

export interface Runtime {
  readonly settings: RuntimeSettings;
  readonly cluster: ClusterApi;
  readonly store: Store;
  readonly metrics: Metrics;
  readonly proxies: ProxyService;
  /** sets of Proxies kept at a count (the controller runs on the leader) */
  readonly proxySets: ProxySetService;
  readonly providers: ProvidersApi;
  readonly reconciler: Reconciler;
  readonly monitor: Monitor;
  readonly gc: OrphanCollector;
  readonly prober: Prober;
  readonly housekeeping: Housekeeping;
  /** why a Proxy is (not) Ready, on demand */
  readonly diagnosis: DiagnosisService;
  /** every host's and Proxy VM's CPU, memory and traffic; `sampler.onSample` for live updates */
  readonly sampler: Sampler;
  /** admin password, sessions, API tokens; ADMIN_PASSWORD is applied by start() */
  readonly auth: AuthService;
  /** the Add host wizard's steps and the server's SSH identity */
  readonly hostSetup: HostSetup;
  /** adding, editing and removing hosts in the providers config file */
  readonly hostConfig: HostConfig;
  /** where the HTTP layer logs requests that failed unexpectedly */
  readonly httpLogger: Logger;
  /** changes for GET /api/events; stats publishers add theirs with `live.publish` */
  readonly live: LiveFeed;
  /** the serial consoles held for the Proxies' VMs (pages watching, boot capture) */
  readonly consoles: ConsoleManager;
  /** The console output buffered for a Proxy (its last 256 KiB, as text); undefined when none was captured. */
  consoleLog(proxyName: string): string | undefined;
  configStatus(): ConfigStatus;
  reloadConfig(): Promise<boolean>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** How often the set controller looks at every set when nothing wakes it sooner. */
const proxySetIntervalMs = 10_000;

/** Phases (as the API shows them) in which a Proxy's VM is still booting: boot capture holds its console. */
const bootingPhases = new Set(['Pending', 'Provisioning', 'Running']);

export function createRuntime(options: RuntimeOptions): Runtime {
  const { settings } = options;
  const clock = options.clock ?? systemClock;
  // The providers log under their own `logger` name, so they hang off the root, not off this.
  const root = options.logger ?? rootLogger();
  const log = childLogger('control-plane', root);
  const metrics = options.metrics ?? processMetrics();
  const store = createStore({ dataDir: settings.dataDir, databaseUrl: settings.databaseUrl, logger: log.child({ component: 'store' }) });
  const providerSet = new ProviderSet();
  const live = new LiveFeed();
  const stopPublishingProxies = publishProxyWrites({ store, feed: live });
  const startedAtMs = clock.now();
  const replica = { id: settings.replicaId, address: settings.replicaAddress };
  // Set below, once the reconciler exists; the leadership only calls it while leading.
  let onProxyChanged: (name: string) => void = () => {};
  const leadership: Leadership = settings.databaseUrl
    ? new AdvisoryLockLeadership({
        databaseUrl: settings.databaseUrl,
        sql: store.sql,
        replica,
        heartbeatMs: settings.leaderHeartbeatMs,
        leaseMs: settings.leaderLeaseMs,
        logger: log.child({ component: 'leadership' }),
        onProxyChanged: (name) => onProxyChanged(name),
      })
    : new SingleReplica(() => clock.now());
  // The loops reach the hypervisors only through this: a replica that no longer leads makes no call.
  const fencedProviders = new FencedProviders(providerSet, () => leadership.isLeader());

  const prober = new Prober({
    store,
    clock,
    metrics,
    logger: log.child({ loop: 'probes' }),
    intervalMs: settings.probeIntervalMs,
    timeoutMs: settings.probeTimeoutMs,
    targetUrl: settings.probeUrl,
    ipEchoUrl: settings.ipEchoUrl,
    probe: options.probe,
  });
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
  const reconciler = new Reconciler({
    store,
    clock,
    metrics,
    providers: fencedProviders,
    logger: log.child({ loop: 'reconciler' }),
    workers: settings.reconcileWorkers,
    backoff: { baseMs: settings.backoffBaseMs, capMs: settings.backoffCapMs },
    resyncIntervalMs: settings.resyncIntervalMs,
    quotaRetryMs: settings.quotaRetryMs,
    provisioningPollMs: settings.provisioningPollMs,
    onRunning: (name) => prober.kick(name),
    onInstanceStarted: (name, providerID) => consoles.capture(name, providerID),
    // A VM started before this process led (a restart, a new leader) and still booting: capture again.
    onInstanceObserved: (name, providerID) => consoles.resumeCapture(name, providerID),
  });
  const monitor = new Monitor({
    store,
    clock,
    metrics,
    providers: fencedProviders,
    logger: log.child({ loop: 'provider-health' }),
    intervalMs: settings.providerCheckIntervalMs,
    timeoutMs: settings.providerCheckTimeoutMs,
    onChecked: (health) =>
      void publishHealth({ store, feed: live, provider: health.provider }).catch((err: unknown) =>
        log.warn({ error: errorMessage(err) }, 'publishing a provider check failed'),
      ),
  });
  const gc = new OrphanCollector({
    store,
    clock,
    providers: fencedProviders,
    logger: log.child({ loop: 'orphan-gc' }),
    intervalMs: settings.gcIntervalMs,
    timeoutMs: settings.gcTimeoutMs,
  });
  const housekeeping = new Housekeeping({
    store,
    clock,
    logger: log.child({ loop: 'housekeeping' }),
    ...settings,
    intervalMs: settings.housekeepingIntervalMs,
  });
  const sampler = new Sampler({
    store,
    clock,
    metrics,
    providers: fencedProviders,
    logger: log.child({ loop: 'stats-sampler' }),
    intervalMs: settings.statsSampleIntervalMs,
    timeoutMs: settings.statsSampleTimeoutMs,
  });
  // One `stats` message per host and round: the charts of that host and of its Proxies refetch.
  sampler.onSample((sample) => live.publish({ kind: 'stats', provider: sample.provider, host: sample.target }));
  const instanceEvents = new InstanceEvents({
    store,
    providers: fencedProviders,
    logger: log.child({ loop: 'instance-events' }),
    enqueue: (name) => reconciler.enqueue(name),
    resyncAll: () => reconciler.resyncAll(),
    onChange: (provider, change, proxy) => publishInstanceChange({ feed: live, provider, change, proxy }),
    recheckHealth: () => monitor.runNow(),
  });
  onProxyChanged = (name) => reconciler.enqueue(name);
  // The leader's loops, in start order. Another leader-only loop is one more line here.
  const loops = new LeaderLoops((name, err) => log.warn({ loop: name, error: errorMessage(err) }, 'stopping a control loop failed'));
  loops.add('reconciler', reconciler);
  loops.add('instance-events', instanceEvents);
  loops.add('provider-health', monitor);
  loops.add('orphan-gc', gc);
  loops.add('probes', prober);
  loops.add('housekeeping', housekeeping);
  loops.add('stats-sampler', sampler);
  let started = false;
  const config = new ConfigManager({
    path: settings.providersConfigPath,
    loader: options.configLoader,
    registry: options.registry ?? builtInProviderTypes(),
    providers: providerSet,
    logger: log.child({ loop: 'config' }),
    providerLogger: root,
    clock,
    debounceMs: settings.configReloadDelayMs,
    // The connections themselves are fenced too: work already inside a provider method (a
    // download's cleanup after the step-down aborted it) must not reach a hypervisor either.
    mayAct: () => leadership.isLeader(),
    proxies: () => store.proxies.list(),
    onApplied: () => {
      if (!started || !loops.active) return;
      // New providers may unblock any Proxy (and release Failed latches): look at all of them now.
      reconciler.enqueueAll().catch((err: unknown) => log.warn({ error: errorMessage(err) }, 'queueing every Proxy after a config change failed'));
      void monitor.runNow();
      void instanceEvents.restart();
    },
  });

  // Its start announces the first-start setup code in the log.
  const auth = new AuthService({ logger: childLogger('auth', root), ...(options.auth ?? authOptionsFromEnv()), db: store.sql });
  const httpLogger = childLogger('http', root);

  const proxies = new ProxyService({
    store,
    clock,
    providerNames: () => config.status().providers.map((entry) => entry.name),
    onChange: (name) => {
      if (loops.active) reconciler.enqueue(name);
      // The leader may run elsewhere: tell it through the database (it resyncs anyway if this is lost).
      else
        leadership
          .announce(name)
          .catch((err: unknown) => log.warn({ proxy: name, error: errorMessage(err) }, 'telling the leader about a change failed; its resync picks it up'));
    },
  });

  // Leader only, like the reconciler; its diagnoses use the service below (defined later).
  const setController = new ProxySetController({
    store,
    proxies,
    providers: fencedProviders,
    clock,
    logger: log.child({ loop: 'proxy-sets' }),
    intervalMs: proxySetIntervalMs,
    diagnose: async (name) => (await diagnosis.diagnose(name)).firstFailure,
    onWritten: (name) => live.publish({ kind: 'proxyset', name }),
  });
  loops.add('proxy-sets', setController);
  const stopWatchingMembers = store.proxies.watch((name) => setController.proxyChanged(name));
  const proxySets = new ProxySetService({
    store,
    clock,
    proxies,
    providerNames: () => config.status().providers.map((entry) => entry.name),
    // Another replica's change is seen by the leader's next pass (every proxySetIntervalMs).
    onChange: (name) => {
      live.publish({ kind: 'proxyset', name });
      if (loops.active) void setController.kick();
    },
  });

  const cluster: ClusterApi = {
    isLeader: () => leadership.isLeader(),
    view: () => clusterView({ store, leadership, replica, startedAtMs, leaseMs: settings.leaderLeaseMs, nowMs: clock.now() }),
  };

  const hostSetup = new HostSetup({
    configPath: settings.providersConfigPath,
    entries: () => config.currentEntries(),
    logger: log.child({ component: 'host-setup' }),
  });
  const hostConfig = new HostConfig({
    configPath: settings.providersConfigPath,
    setup: hostSetup,
    proxies: () => store.proxies.list(),
    reload: () => config.reload(),
    logger: log.child({ component: 'host-config' }),
  });

  const providers: ProvidersApi = {
    list: async () => {
      const latest = new Map((await store.health.latest()).map((health) => [health.provider, health.targets]));
      return config.status().providers.map((entry) => ({ ...entry, targets: latest.get(entry.name) ?? [] }));
    },
    history: (name, query) => store.health.history({ provider: name, ...query }),
    get: (name) => providerSet.get(name),
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

  let stopping: Promise<void> | undefined;
  return {
    settings,
    cluster,
    store,
    metrics,
    proxies,
    proxySets,
    providers,
    reconciler,
    monitor,
    gc,
    prober,
    housekeeping,
    diagnosis,
    sampler,
    auth,
    hostSetup,
    hostConfig,
    httpLogger,
    live,
    consoles,
    consoleLog: (proxyName) => consoles.consoleLog(proxyName),
    configStatus: () => config.status(),
    reloadConfig: () => config.reload(),
    async start() {
      if (started) return;
      await store.migrate();
      await auth.init();
      await config.reload();
      config.startWatching();
      started = true;
      leadership.start({
        gained: () => void loops.start(),
        lost: () => {
          void loops.stop();
          // Boot capture is the leader's: let the new one hold the consoles of the VMs still booting.
          consoles
            .releaseUnwatched('released: this replica no longer leads')
            .catch((err: unknown) => log.warn({ error: errorMessage(err) }, 'releasing the boot captures failed'));
          // The changes now happen elsewhere: browsers reconnect, and poll a replica that does not lead.
          live.endStreams();
        },
      });
      log.info(
        {
          store: store.engine,
          replica: replica.id,
          dataDir: settings.dataDir,
          providers: providerSet.list().map((provider) => provider.name),
          probeUrl: settings.probeUrl ? redactUrl(settings.probeUrl) : null,
        },
        'control plane started',
      );
    },
    stop() {
      stopping ??= (async () => {
        // Open event streams end first: a browser reconnects (and falls back to polling) at once.
        live.close();
        stopPublishingProxies();
        stopWatchingMembers();
        await config.stop();
        await leadership.stop();
        await loops.stop();
        await consoles.stop();
        for (const failure of await providerSet.close()) log.warn({ error: errorMessage(failure) }, 'closing a provider failed');
        await store.close();
        log.info('control plane stopped');
      })();
      return stopping;
    },
  };
}
