// The composition root: settings → store → leadership (choose-leadership.ts) → the services the
// HTTP routes call, which every replica serves (services.ts) → the gateway (create-gateway.ts) →
// the control loops, which run only while this replica leads (control-loops.ts); then start and
// stop, each in its order (lifecycle.ts). All process state lives here (the auth service, the HTTP
// logger, the provider registry, each provider's caches): Next bundles each route separately, so
// module-level state would be per bundle. The process's one instance: singleton.ts.
import { FencedProviders } from '@/server/cluster/fenced-providers';
import type { AuthServiceOptions } from '@/server/auth/service';
import type { ProviderRegistry } from '@/server/providers/registry';
import { createStore, type Store } from '@/server/store';
import { type Logger, logger as childLogger, rootLogger } from '@/server/telemetry/logger';
import { type Metrics, processMetrics } from '@/server/telemetry/metrics';
import { type Clock, systemClock } from '@/server/control/clock';
import type { ConfigLoader } from '@/server/control/config-reload';
import { LiveFeed } from '@/server/control/live-feed';
import { publishProxyWrites } from '@/server/control/live-publishers';
import type { PortCheck } from '@/server/control/port-check';
import type { ProberOptions } from '@/server/control/prober';
import { ProviderSet } from '@/server/control/provider-set';
import type { RuntimeSettings } from '@/server/control/settings';
import { configureSshDials } from '@/server/ssh/dial-limiter';
import { chooseLeadership } from './choose-leadership';
import { createControlLoops, type RuntimeLoops } from './control-loops';
import { createGateway } from './create-gateway';
import { runtimeLifecycle } from './lifecycle';
import { createServices, type RouteServices } from './services';

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

/**
 * One server's control plane: the `services` the route handlers are given (never the store or a
 * loop), and beside them what only the process itself (its start, tests, benches) touches.
 */
export interface Runtime {
  readonly services: RouteServices;
  readonly loops: RuntimeLoops;
  readonly store: Store;
  readonly settings: RuntimeSettings;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createRuntime(options: RuntimeOptions): Runtime {
  const { settings } = options;
  const clock = options.clock ?? systemClock;
  configureSshDials({ maxInFlight: settings.sshDialsMax, perAddress: settings.sshDialsPerAddress });
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
  // Told only while leading, so the loops below exist by then.
  const leadership = chooseLeadership({ settings, store, replica, clock, logger: log, onProxyChanged: (name) => loops.reconciler.enqueue(name) });

  // The services and the loops need each other: the services say what changed, the set controller
  // uses the Proxy service and diagnosis. The services come first; what they tell the loops is
  // only ever said after this function has returned.
  const services = createServices({
    settings,
    store,
    clock,
    logger: log,
    root,
    providerSet,
    leadership,
    replica,
    startedAtMs,
    live,
    registry: options.registry,
    configLoader: options.configLoader,
    probe: options.probe,
    portCheck: options.portCheck,
    auth: options.auth,
    changes: {
      proxyChanged: (name) => loops.proxyChanged(name),
      proxySetChanged: () => loops.proxySetChanged(),
      configApplied: () => {
        if (lifecycle.started) loops.configApplied();
      },
    },
  });
  const { config, consoles, auth } = services;
  const gateway = createGateway({
    settings,
    store,
    proxies: services.proxies,
    auth,
    live,
    metrics,
    clock,
    root,
    probeNow: (proxy) => loops.prober.kick(proxy),
  });
  const loops = createControlLoops({
    settings,
    store,
    clock,
    metrics,
    logger: log,
    // The loops reach the hypervisors only through this: a replica that no longer leads makes no call.
    providers: new FencedProviders(providerSet, () => leadership.isLeader()),
    leadership,
    live,
    consoles,
    proxies: services.proxies,
    diagnosis: services.diagnosis,
    probe: options.probe,
    drain: (proxy, signal) => gateway.drain(proxy, signal),
  });
  const lifecycle = runtimeLifecycle({
    settings,
    store,
    replica,
    leadership,
    auth,
    config,
    gateway,
    loops,
    consoles,
    live,
    providerSet,
    stopPublishingProxies,
    logger: log,
  });

  const { reconciler, monitor, gc, prober, housekeeping, sampler } = loops;
  return {
    services: { ...services, gateway, live, metrics },
    loops: { reconciler, monitor, gc, prober, housekeeping, sampler },
    store,
    settings,
    start: () => lifecycle.start(),
    stop: () => lifecycle.stop(),
  };
}
