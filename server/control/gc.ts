// Orphan GC: every interval, ListByTag('managed') per provider and delete the instances whose
// owning Proxy (by uid) no longer exists. It never deletes what it cannot attribute: an instance
// without a uid is left alone, and so is one whose uid belongs to any Proxy, deleting ones and
// ones on another provider included. The Proxy uids are read after the listing, and a Proxy's
// record is committed before its Create is ever called, so an instance being created right now
// always finds its owner. A provider whose listing fails is skipped whole for this sweep.
import { managedTag, type Provider } from '@/server/providers/contract';
import type { Store } from '@/server/store';
import { timeoutSignal } from './clock';
import { errorMessage } from '@/lib/error-message';
import type { ProviderLookup } from './provider-set';
import { type LoopOptions, Ticker } from './ticker';

export interface GcOptions extends LoopOptions {
  providers: ProviderLookup;
  store: Store;
  /** cap on one provider's sweep (listing plus deletes) */
  timeoutMs: number;
}

export interface SweepReport {
  provider: string;
  /** the listing failed: nothing was deleted on this provider */
  skipped?: string;
  listed: number;
  deleted: string[];
  unattributable: string[];
  failed: Array<{ providerID: string; error: string }>;
}

export class OrphanCollector {
  private readonly ticker: Ticker;

  constructor(private readonly options: GcOptions) {
    this.ticker = new Ticker({
      name: 'orphan-gc',
      clock: options.clock,
      intervalMs: options.intervalMs,
      logger: options.logger,
      run: (signal) => this.sweep(signal).then(() => undefined),
    });
  }

  start(): void {
    this.ticker.start(true);
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  async sweep(signal?: AbortSignal): Promise<SweepReport[]> {
    const reports: SweepReport[] = [];
    for (const provider of this.options.providers.list()) {
      if (signal?.aborted) break;
      reports.push(await this.sweepProvider(provider, signal));
    }
    return reports;
  }

  private async sweepProvider(provider: Provider, parent?: AbortSignal): Promise<SweepReport> {
    const report: SweepReport = { provider: provider.name, listed: 0, deleted: [], unattributable: [], failed: [] };
    const { signal, dispose } = timeoutSignal({
      clock: this.options.clock,
      timeoutMs: this.options.timeoutMs,
      parent,
      reason: () => new Error(`orphan GC sweep exceeded ${this.options.timeoutMs} ms`),
    });
    try {
      return await this.sweepWith(provider, signal, report);
    } finally {
      dispose();
    }
  }

  private async sweepWith(provider: Provider, signal: AbortSignal, report: SweepReport): Promise<SweepReport> {
    const log = this.options.logger.child({ provider: provider.name });
    let instances;
    try {
      instances = await provider.listByTag(managedTag, { signal });
    } catch (err) {
      report.skipped = errorMessage(err);
      log.warn({ error: report.skipped }, 'orphan GC sweep skipped: listing failed');
      return report;
    }
    report.listed = instances.length;
    const owners = await this.options.store.proxies.uids();
    for (const instance of instances) {
      if (!instance.uid) {
        report.unattributable.push(instance.providerID);
        continue;
      }
      if (owners.has(instance.uid)) continue;
      try {
        await provider.delete(instance.providerID, { signal });
        report.deleted.push(instance.providerID);
        log.info({ providerID: instance.providerID, uid: instance.uid }, 'orphan instance deleted');
      } catch (err) {
        report.failed.push({ providerID: instance.providerID, error: errorMessage(err) });
        log.warn({ providerID: instance.providerID, error: errorMessage(err) }, 'orphan instance delete failed');
      }
    }
    return report;
  }
}
