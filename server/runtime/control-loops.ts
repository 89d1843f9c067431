// The control loops only the leader runs (reconciler, instance events, provider health, orphan GC,
// probes, housekeeping, stats sampler, gateway history, proxy-set controller), built and registered in LeaderLoops.
// They reach the hypervisors only through the fenced providers. The services never see a loop: they
// say what changed (proxyChanged, proxySetChanged), and this decides who acts on it.
import type { FencedProviders } from '@/server/cluster/fenced-providers';
import { LeaderLoops } from '@/server/cluster/leader-loops';
import type { Leadership } from '@/server/cluster/leadership';
import type { Store } from '@/server/store';
import { GatewayStatsStore } from '@/server/store/gateway-stats';
import type { Logger } from '@/server/telemetry/logger';
import type { Metrics } from '@/server/telemetry/metrics';
import type { Clock } from '@/server/control/clock';
import type { ConsoleManager } from '@/server/control/console-manager';
import type { DiagnosisService } from '@/server/control/diagnosis';
import { OrphanCollector } from '@/server/control/gc';
import { GatewayHistory } from '@/server/control/gateway-history';
import { Housekeeping } from '@/server/control/housekeeping';
import { InstanceEvents } from '@/server/control/instance-events';
import type { LiveFeed } from '@/server/control/live-feed';
import { publishHealth, publishInstanceChange } from '@/server/control/live-publishers';
import { Monitor } from '@/server/control/monitor';
import { errorMessage } from '@/lib/error-message';
import { Prober, type ProberOptions } from '@/server/control/prober';
import type { ProxyService } from '@/server/control/proxy-service';
import { ProxySetController } from '@/server/control/proxy-set-controller';
import { Reconciler } from '@/server/control/reconciler';
import { Sampler } from '@/server/control/sampler';
import type { RuntimeSettings } from '@/server/control/settings';

export interface ControlLoopsOptions {
  settings: RuntimeSettings;
  store: Store;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
  providers: FencedProviders;
  leadership: Leadership;
  live: LiveFeed;
  consoles: ConsoleManager;
  /** the set controller creates and deletes members through the same service as the API */
  proxies: ProxyService;
  diagnosis: DiagnosisService;
  /** replaces the HTTP probe (tests) */
  probe?: ProberOptions['probe'];
  /** the gateway's drain of a Proxy about to be deleted */
  drain: (proxy: string, signal: AbortSignal) => Promise<void>;
}

/** The loops themselves (tests and benches drive a round of one through the runtime). */
export interface RuntimeLoops {
  readonly reconciler: Reconciler;
  readonly monitor: Monitor;
  readonly gc: OrphanCollector;
  readonly prober: Prober;
  readonly housekeeping: Housekeeping;
  readonly sampler: Sampler;
}

/** The loops and their running: the leader's lifecycle starts and stops them. */
export interface ControlLoops extends RuntimeLoops {
  /** whether the loops run now (this replica leads) */
  readonly active: boolean;
  /** starts every loop: this replica gained the lead */
  start(): Promise<void>;
  /** stops every loop, aborting their work in flight */
  stop(): Promise<void>;
  /** a Proxy was written here: reconcile it, or tell the leader when it runs elsewhere */
  proxyChanged(name: string): void;
  /** a set was written here: the leader's controller looks now (another replica's, on its next pass) */
  proxySetChanged(): void;
  /** the providers config was applied: new providers may unblock any Proxy */
  configApplied(): void;
  /** stops following the store's writes (the runtime's stop) */
  detach(): void;
}

/** How often the set controller looks at every set when nothing wakes it sooner. */
const proxySetIntervalMs = 10_000;

export function createControlLoops(options: ControlLoopsOptions): ControlLoops {
  const { settings, store, clock, metrics, logger: log, providers, leadership, live, consoles } = options;
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
  const reconciler = new Reconciler({
    store,
    clock,
    metrics,
    providers,
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
    onRemoved: (name) => consoles.forget(name),
    drain: options.drain,
  });
  const monitor = new Monitor({
    store,
    clock,
    metrics,
    providers,
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
    providers,
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
    providers,
    logger: log.child({ loop: 'stats-sampler' }),
    intervalMs: settings.statsSampleIntervalMs,
    timeoutMs: settings.statsSampleTimeoutMs,
    // Half an interval after the health check's first round, which dials every host at once.
    firstRoundDelayMs: Math.round(settings.statsSampleIntervalMs / 2),
  });
  // One `stats` message per host and round: the charts of that host and of its Proxies refetch.
  sampler.onSample((sample) => live.publish({ kind: 'stats', provider: sample.provider, host: sample.target }));
  const gatewayHistory = new GatewayHistory({
    store: new GatewayStatsStore(store.sql),
    clock,
    logger: log.child({ loop: 'gateway-history' }),
    intervalMs: settings.statsSampleIntervalMs,
    // Named by Proxy alone: the gateway's traffic belongs to no host.
    onRecorded: (proxies) => {
      for (const proxy of proxies) live.publish({ kind: 'stats', provider: '', host: '', proxy });
    },
  });
  const instanceEvents = new InstanceEvents({
    store,
    providers,
    logger: log.child({ loop: 'instance-events' }),
    enqueue: (name) => reconciler.enqueue(name),
    resyncAll: () => reconciler.resyncAll(),
    onChange: (provider, change, proxy) => publishInstanceChange({ feed: live, provider, change, proxy }),
    recheckHealth: () => monitor.runNow(),
  });
  const setController = new ProxySetController({
    store,
    proxies: options.proxies,
    providers,
    clock,
    logger: log.child({ loop: 'proxy-sets' }),
    intervalMs: proxySetIntervalMs,
    diagnose: async (name) => (await options.diagnosis.diagnose(name)).firstFailure,
    onWritten: (name) => live.publish({ kind: 'proxyset', name }),
  });
  const stopWatchingMembers = store.proxies.watch((name) => setController.proxyChanged(name));

  // The leader's loops, in start order. Another leader-only loop is one more line here.
  const loops = new LeaderLoops((name, err) => log.warn({ loop: name, error: errorMessage(err) }, 'stopping a control loop failed'));
  loops.add('reconciler', reconciler);
  loops.add('instance-events', instanceEvents);
  loops.add('provider-health', monitor);
  loops.add('orphan-gc', gc);
  loops.add('probes', prober);
  loops.add('housekeeping', housekeeping);
  loops.add('stats-sampler', sampler);
  loops.add('gateway-history', gatewayHistory);
  loops.add('proxy-sets', setController);

  return {
    reconciler,
    monitor,
    gc,
    prober,
    housekeeping,
    sampler,
    get active() {
      return loops.active;
    },
    start: () => loops.start(),
    stop: () => loops.stop(),
    proxyChanged(name) {
      if (loops.active) reconciler.enqueue(name);
      // The leader may run elsewhere: tell it through the database (it resyncs anyway if this is lost).
      else
        leadership
          .announce(name)
          .catch((err: unknown) => log.warn({ proxy: name, error: errorMessage(err) }, 'telling the leader about a change failed; its resync picks it up'));
    },
    proxySetChanged() {
      if (loops.active) void setController.kick();
    },
    configApplied() {
      if (!loops.active) return;
      reconciler.enqueueAll().catch((err: unknown) => log.warn({ error: errorMessage(err) }, 'queueing every Proxy after a config change failed'));
      void monitor.runNow();
      void instanceEvents.restart();
    },
    detach: stopWatchingMembers,
  };
}
