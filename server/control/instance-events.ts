// Instance changes drive the reconciler: every provider that can watch its instances reports their
// state changes as they happen, and the Proxy owning the instance is queued at once instead of at
// the next resync. The pass itself decides what to do (level-based), so an event only says "look
// now". A config reload rebuilds the providers, so the watches are made again over the new set.
// A change to a target itself (a storage pool stopped or refreshed) runs the health checks now, so
// the host page and placement see it without waiting for the next check; changes that arrive while
// that check runs get one more check after it.
import type { InstanceChange, InstanceWatch, Provider } from '@/server/providers/contract';
import type { Store } from '@/server/store';
import type { Logger } from '@/server/telemetry/logger';
import { errorMessage } from '@/lib/error-message';
import type { ProviderLookup } from './provider-set';

export interface InstanceEventsOptions {
  store: Store;
  providers: Pick<ProviderLookup, 'list'>;
  logger: Logger;
  /** queues a Proxy for a pass now */
  enqueue(name: string): void;
  /** queues every Proxy (changes were missed) */
  resyncAll(): Promise<void>;
  /** told every change, with the Managed Proxy owning the instance when one does (the live feed) */
  onChange?(provider: string, change: InstanceChange, proxy: string | undefined): void;
  /** runs the provider health checks now */
  recheckHealth?(): Promise<void>;
}

export class InstanceEvents {
  private watches: InstanceWatch[] = [];
  private recheck: Promise<void> | undefined;
  private recheckAgain = false;
  /** changes are handled one after another, in the order they came (their owners are looked up in the store) */
  private handling: Promise<void> = Promise.resolve();

  constructor(private readonly options: InstanceEventsOptions) {}

  /** Watches every current provider that supports it. */
  start(): void {
    this.watches.push(...this.options.providers.list().flatMap((provider) => this.watch(provider)));
  }

  /** After a provider swap: watches the new providers, then ends the old watches. */
  async restart(): Promise<void> {
    const previous = this.watches;
    this.watches = [];
    this.start();
    await stopAll(previous, this.options.logger);
  }

  async stop(): Promise<void> {
    const previous = this.watches;
    this.watches = [];
    await stopAll(previous, this.options.logger);
  }

  private watch(provider: Provider): InstanceWatch[] {
    if (!provider.watchInstances) return [];
    const log = this.options.logger.child({ provider: provider.name });
    try {
      return [
        provider.watchInstances({
          changed: (change) => {
            this.handling = this.handling
              .then(() => this.changed(provider.name, change, log))
              .catch((err: unknown) => log.warn({ error: errorMessage(err) }, 'finding the Proxy of an instance event failed'));
          },
          missed: (target) => {
            log.info({ target }, 'instance events may have been missed; resyncing every Proxy');
            this.options.resyncAll().catch((err: unknown) => log.warn({ error: errorMessage(err) }, 'resyncing after missed instance events failed'));
          },
          targetChanged: (target, what) => {
            log.info({ target, change: what }, 'target changed; checking provider health now');
            this.recheckHealth(log);
          },
        }),
      ];
    } catch (err) {
      log.warn({ error: errorMessage(err) }, 'watching instances failed; changes are seen at the next resync');
      return [];
    }
  }

  private recheckHealth(log: Logger): void {
    const { recheckHealth } = this.options;
    if (!recheckHealth) return;
    if (this.recheck) {
      this.recheckAgain = true;
      return;
    }
    this.recheck = recheckHealth()
      .catch((err: unknown) => log.warn({ error: errorMessage(err) }, 'health re-check after a target change failed'))
      .finally(() => {
        this.recheck = undefined;
        if (this.recheckAgain) {
          this.recheckAgain = false;
          this.recheckHealth(log);
        }
      });
  }

  private async changed(provider: string, change: InstanceChange, log: Logger): Promise<void> {
    const proxy = await this.owner(provider, change);
    const fields = { target: change.target, instance: change.name, event: change.event };
    this.options.onChange?.(provider, change, proxy);
    if (proxy === undefined) {
      log.debug(fields, 'instance event for no Proxy; ignored');
      return;
    }
    log.info({ ...fields, proxy }, 'instance event; reconciling the Proxy');
    this.options.enqueue(proxy);
  }

  /**
   * The Managed Proxy on `provider` whose instance name this is, and whose recorded instance (if
   * one is recorded yet) is this one: a namesake on another target is not its instance.
   */
  private async owner(provider: string, change: InstanceChange): Promise<string | undefined> {
    // One indexed lookup (the store's instance-name index), not a hash of every Proxy's name.
    const candidates = await this.options.store.proxies.byInstanceName(change.name);
    const owner = candidates.find((record) => {
      if (record.spec.mode !== 'Managed' || record.spec.provider !== provider) return false;
      const recorded = record.status.providerID;
      return recorded === undefined || recorded === change.providerID;
    });
    return owner?.name;
  }
}

async function stopAll(watches: InstanceWatch[], logger: Logger): Promise<void> {
  const results = await Promise.allSettled(watches.map((watch) => watch.stop()));
  for (const result of results) {
    if (result.status === 'rejected') logger.warn({ error: errorMessage(result.reason) }, 'stopping an instance watch failed');
  }
}
