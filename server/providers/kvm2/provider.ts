// The kvm2 provider as the control plane sees it: the contract's five methods over create.ts,
// instance.ts and check.ts. Each operation runs in its span (`provider.create`, `provider.get`,
// `provider.delete`, `provider.list`; the health monitor opens its own around check), ends with
// the spec's outcome line, and on failure logs `kvm2 backend call failed` with the raw error once
// before returning it classified (operation-span.ts): Create never returns NotFound. The state an
// entry's successive providers share: shared-state.ts.
import type { Kvm2Entry } from '@/server/providers/config';
import type { CallOptions, CheckOptions, CreateRequest, Instance, InstanceWatch, InstanceWatcher, Provider, Target } from '@/server/providers/contract';
import { ErrPermanent } from '@/server/providers/errors';
import type { HostCapacityReader } from '@/server/providers/host-capacity';
import type { HostInventory } from '@/server/providers/host-inventory';
import type { InstanceConsole } from '@/server/providers/instance-console';
import type { InstanceInspector } from '@/server/providers/instance-inspection';
import type { HostStatsReader } from '@/server/providers/host-stats';
import { bindOnce, type Logger } from '@/server/telemetry/logger';
import { defaultBudgets, type Budgets } from './backend';
import { checkHosts } from './check';
import type { Kvm2Context } from './context';
import { createInstance } from './create';
import type { DownloadTracker } from './download-progress';
import { fencedBackend } from './fence';
import { kvm2HostCapacity } from './host-capacity';
import { kvm2HostStats } from './host-stats';
import { subscribeHostEvents, type HostEventHandlers, type HostEvents } from './host-events';
import { kvm2HostInventory } from './host-inventory';
import { createHostBackend } from './hosts';
import { deleteInstance, getInstance, listInstances } from './instance';
import { kvm2InstanceConsole } from './instance-console';
import { kvm2InstanceInspector } from './instance-inspection';
import { readDomainState, watchHosts } from './instance-watch';
import { configuredHost, startupWarnings, withDefaults, type Kvm2Settings } from './kvm2';
import type { HostBackend } from './libvirt-api';
import { instanceOf, tracedOperation, zoneHost, type OperationSpec } from './operation-span';
import { newKvm2SharedState, type Kvm2SharedState } from './shared-state';

export interface Kvm2ProviderOptions {
  settings: Kvm2Settings;
  backend: HostBackend;
  /** The provider's logger; it should carry `provider` (createKvm2Provider arranges that). */
  logger: Logger;
  budgets?: Budgets;
  /** shared with the entry's earlier and later providers; a state of its own by default */
  shared?: Kvm2SharedState;
  now?: () => Date;
  /**
   * true while this replica leads (the runtime's leadership); the connections are fenced with it
   * (fence.ts). Without it nothing is fenced: a provider of its own, as in tests and tools.
   */
  mayAct?: () => boolean;
}

export class Kvm2Provider implements Provider {
  readonly type = 'kvm2';
  readonly name: string;
  /** Base-image downloads in progress, for the dashboard. */
  readonly downloads: DownloadTracker;
  /** Host listings, image eviction, downloads and the catalogue, for the dashboard. */
  readonly inventory: HostInventory;
  /** What a placement needs and what each host has left, for automatic placement. */
  readonly capacity: HostCapacityReader;
  /** Managed domains' serial consoles, on the hosts' pooled connections. */
  readonly console: InstanceConsole;
  /** Read-only looks at one domain, for the diagnosis of a Proxy. */
  readonly inspector: InstanceInspector;
  /** Every domain's counters and the host's CPU and memory in one round per host, for the charts. */
  readonly stats: HostStatsReader;
  private readonly context: Kvm2Context;
  private readonly rawBackend: HostBackend;
  private readonly hostEvents = new Set<HostEvents>();
  /** operations running now; close waits for them */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(options: Kvm2ProviderOptions) {
    this.name = options.settings.name;
    const shared = options.shared ?? newKvm2SharedState();
    this.downloads = shared.downloads;
    this.rawBackend = options.backend;
    const { mayAct } = options;
    // What only the leader does goes through the strict view; what any replica may do (listings,
    // previews, diagnosis, consoles) through the readers' view, which refuses writes once not leading.
    const leaderBackend = mayAct ? fencedBackend(options.backend, { mayAct, view: 'leader' }) : options.backend;
    const readsBackend = mayAct ? fencedBackend(options.backend, { mayAct, view: 'reads' }) : options.backend;
    this.context = {
      settings: options.settings,
      backend: leaderBackend,
      budgets: options.budgets ?? defaultBudgets,
      logger: options.logger,
      domainLocks: shared.domainLocks,
      imageLocks: shared.imageLocks,
      downloads: shared.downloads,
      virtTypes: new WeakMap(),
      now: options.now ?? (() => new Date()),
    };
    const readsContext: Kvm2Context = { ...this.context, backend: readsBackend };
    this.capacity = kvm2HostCapacity(readsContext);
    this.console = kvm2InstanceConsole(readsContext);
    this.stats = kvm2HostStats(this.context);
    this.inventory = kvm2HostInventory({ settings: options.settings, backend: readsBackend, downloads: this.downloads, imageLocks: shared.imageLocks });
    this.inspector = kvm2InstanceInspector({ settings: options.settings, backend: readsBackend });
  }

  get settings(): Kvm2Settings {
    return this.context.settings;
  }

  /** The pooled connections to the hosts, unfenced (tests reach the fake behind it). */
  get backend(): HostBackend {
    return this.rawBackend;
  }

  private get logger(): Logger {
    return this.context.logger;
  }

  private operation<T>(spec: OperationSpec, work: () => Promise<T>): Promise<T> {
    const running = tracedOperation({ provider: this, logger: this.logger, spec }, work);
    this.inFlight.add(running);
    const done = () => this.inFlight.delete(running);
    running.then(done, done);
    return running;
  }

  create(request: CreateRequest, options: CallOptions = {}): Promise<Instance> {
    const instance = { host: zoneHost(this.settings, request.placement.zone), name: request.name };
    return this.operation({ op: 'create', span: 'provider.create', attributes: { name: request.name }, instance }, async () => {
      const created = await createInstance(this.context, request, options);
      this.logger.debug({ host: created.host, name: created.name, id: created.providerID }, 'kvm2 domain ensured running');
      return created;
    });
  }

  get(providerID: string, options: CallOptions = {}): Promise<Instance> {
    return this.operation({ op: 'get', span: 'provider.get', attributes: { id: providerID }, instance: instanceOf(providerID) }, async () => {
      const instance = await getInstance(this.context, providerID, options);
      this.logger.debug({ host: instance.host, name: instance.name, state: instance.state, ip: instance.ip, uid: instance.uid }, 'kvm2 domain fetched');
      return instance;
    });
  }

  delete(providerID: string, options: CallOptions = {}): Promise<void> {
    const instance = instanceOf(providerID);
    return this.operation({ op: 'delete', span: 'provider.delete', attributes: { id: providerID }, instance }, async () => {
      const outcome = await deleteInstance(this.context, providerID, options);
      this.logger.debug({ id: providerID, ...instance, ...outcome }, 'kvm2 domain deleted');
    });
  }

  listByTag(tag: string, options: CallOptions = {}): Promise<Instance[]> {
    return this.operation({ op: 'listByTag', span: 'provider.list', attributes: { tag } }, async () => {
      const instances = await listInstances(this.context, tag, options);
      this.logger.debug({ hosts: this.settings.hosts.length, managed: instances.length }, 'kvm2 domains listed');
      return instances;
    });
  }

  check(options: CheckOptions = {}): Promise<Target[]> {
    const { signal, aroundTarget, previous } = options;
    return checkHosts({ backend: this.context.backend, settings: this.settings, logger: this.logger, signal, aroundTarget, previous, now: this.context.now });
  }

  checkTargets(): Array<Pick<Target, 'name' | 'details' | 'pool'>> {
    return this.settings.hosts.map((host) => ({ name: host.name, details: { user: host.user, pool: host.pool }, pool: { name: host.pool } }));
  }

  /**
   * libvirt events from `host` (a configured host name), registered on its pooled connection and
   * registered again after every redial until closed; see host-events.ts.
   */
  subscribeHostEvents(host: string, handlers: HostEventHandlers): HostEvents {
    if (!configuredHost(this.settings, host)) throw new ErrPermanent(`host ${JSON.stringify(host)} is not in kvm2.hosts`);
    const events = subscribeHostEvents({ backend: this.context.backend, host, handlers, logger: this.logger });
    this.hostEvents.add(events);
    return {
      close: async () => {
        this.hostEvents.delete(events);
        await events.close();
      },
    };
  }

  /** Domain lifecycle events on every configured host, as instance changes (instance-watch.ts). */
  watchInstances(watcher: InstanceWatcher): InstanceWatch {
    const hosts = this.settings.hosts.map((host) => host.name);
    return watchHosts({
      hosts,
      subscribe: (host, handlers) => this.subscribeHostEvents(host, handlers),
      watcher,
      readState: (host, dom) => readDomainState({ backend: this.context.backend, host, dom }),
    });
  }

  /**
   * Ends the event subscriptions (so nothing redials), waits for the operations in flight (a
   * provider replaced by a config reload finishes what it started, a download say, on the
   * connections it has), then closes the pooled connections.
   */
  async close(): Promise<void> {
    const subscriptions = [...this.hostEvents];
    this.hostEvents.clear();
    await Promise.all(subscriptions.map((events) => events.close()));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.context.backend.closeAll();
  }
}

export interface CreateKvm2ProviderOptions {
  /** The provider entry as loaded (defaults applied here), or settings already defaulted. */
  entry?: Kvm2Entry;
  settings?: Kvm2Settings;
  logger: Logger;
  /** Defaults to SSH connections to the configured hosts (hosts.ts); tests pass a fake. */
  backend?: HostBackend;
  budgets?: Budgets;
  shared?: Kvm2SharedState;
  now?: () => Date;
  /** see Kvm2ProviderOptions.mayAct */
  mayAct?: () => boolean;
}

/**
 * New: defaults applied, the startup warnings logged (a missing key or known_hosts file only
 * warns: the Secret may land later), and the provider built over its host backend.
 */
export function createKvm2Provider(options: CreateKvm2ProviderOptions): Kvm2Provider {
  const settings = options.settings ?? (options.entry ? withDefaults(options.entry) : undefined);
  if (!settings) throw new TypeError('createKvm2Provider needs an entry or settings');
  const logger = bindOnce(options.logger, { logger: 'kvm2', provider: settings.name });
  startupWarnings(settings, { log: logger });
  const backend =
    options.backend ??
    createHostBackend({ providerName: settings.name, settings, logger, budgets: options.budgets, refusedDials: options.shared?.refusedDials });
  return new Kvm2Provider({ settings, backend, logger, budgets: options.budgets, shared: options.shared, now: options.now, mayAct: options.mayAct });
}
