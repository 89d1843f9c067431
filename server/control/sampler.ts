// The stats sampler: every interval, one round per host of every provider that can read its hosts'
// telemetry (the host-stats capability), all hosts at once. Each round's counters become rates
// against the host's previous round (stats-rates.ts), the Proxies' VMs and the host go to the store
// and to the Prometheus series, and listeners (the live event stream) get the new sample.
import type { Provider } from '@/server/providers/contract';
import type { DomainCounters, HostCounters } from '@/server/providers/host-stats';
import type { ProxyRecord, Store } from '@/server/store';
import type { Logger } from '@/server/telemetry/logger';
import type { Metrics } from '@/server/telemetry/metrics';
import type { Clock } from './clock';
import { instanceName } from './names';
import { errorMessage } from './pass';
import type { ProviderLookup } from './provider-set';
import { StatsMetrics } from './stats-metrics';
import { hostRates, vmRates, type HostRates, type Timed, type VmRates } from './stats-rates';
import { Ticker } from './ticker';

/** One host's round as listeners get it. */
export interface StatsSample {
  provider: string;
  target: string;
  atMs: number;
  host: HostRates;
  /** the Proxies' VMs on the host that run */
  vms: Array<VmRates & { proxy: string; domain: string }>;
}

export type SampleListener = (sample: StatsSample) => void;

export interface SamplerOptions {
  store: Store;
  clock: Clock;
  providers: ProviderLookup;
  logger: Logger;
  metrics?: Metrics;
  intervalMs: number;
}

interface HostMemory {
  atMs: number;
  counters: HostCounters;
  domains: Map<string, Timed<DomainCounters>>;
}

export class Sampler {
  private readonly ticker: Ticker;
  private readonly previous = new Map<string, HostMemory>();
  private readonly listeners = new Set<SampleListener>();
  private readonly failing = new Set<string>();
  private readonly metrics: StatsMetrics | undefined;

  constructor(private readonly options: SamplerOptions) {
    this.ticker = new Ticker({ name: 'stats-sampler', clock: options.clock, intervalMs: options.intervalMs, logger: options.logger, run: (signal) => this.runOnce(signal).then(() => undefined) });
    this.metrics = options.metrics ? new StatsMetrics(options.metrics) : undefined;
  }

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** Calls `listener` with every host's sample as it is stored; returns the unsubscribe. */
  onSample(listener: SampleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One round over every host of every provider that can be sampled; the samples it stored. */
  async runOnce(signal?: AbortSignal): Promise<StatsSample[]> {
    const rounds = this.options.providers.list().flatMap((provider) => (provider.stats ? provider.stats.hosts().map((host) => this.sampleHost(provider, host, signal)) : []));
    const samples = await Promise.all(rounds);
    return samples.filter((sample): sample is StatsSample => sample !== undefined);
  }

  private async sampleHost(provider: Provider, host: string, signal?: AbortSignal): Promise<StatsSample | undefined> {
    const key = `${provider.name}\u0000${host}`;
    let counters: HostCounters;
    try {
      counters = await provider.stats!.sample(host, { signal });
    } catch (err) {
      if (signal?.aborted) return undefined;
      const fields = { provider: provider.name, target: host, error: errorMessage(err) };
      if (this.failing.has(key)) this.options.logger.debug(fields, 'sampling a host failed again');
      else this.options.logger.warn(fields, 'sampling a host failed; its charts have a gap until it answers');
      this.failing.add(key);
      // After a gap the counters may have been reset any number of times: start again.
      this.previous.delete(key);
      return undefined;
    }
    if (this.failing.delete(key)) this.options.logger.info({ provider: provider.name, target: host }, 'sampling a host works again');
    const atMs = this.options.clock.now();
    const before = this.previous.get(key);
    const hostNow = hostRates(before?.counters, counters);
    const owners = await this.owners(provider.name);
    const domains = new Map<string, Timed<DomainCounters>>();
    const vms: StatsSample['vms'] = [];
    const owned: Array<{ proxy: string; uid: string; counters: DomainCounters; rates: VmRates; spanMs: number | null }> = [];
    for (const domain of counters.domains) {
      const timed = { atMs, counters: domain };
      domains.set(domain.name, timed);
      const owner = owners.get(domain.name);
      if (!domain.running || !owner || (owner.status.providerID !== undefined && owner.status.providerID !== domain.providerID)) continue;
      const earlier = before?.domains.get(domain.name);
      const rates = vmRates(earlier, timed);
      owned.push({ proxy: owner.name, uid: owner.uid, counters: domain, rates, spanMs: rates.cpuPercent === null || !earlier ? null : atMs - earlier.atMs });
      vms.push({ proxy: owner.name, domain: domain.name, ...rates });
    }
    this.previous.set(key, { atMs, counters, domains });
    await this.options.store.stats.record({
      host: { provider: provider.name, target: host, sampledAtMs: atMs, ...hostNow },
      vms: owned.map(({ uid, counters: domain, rates, spanMs }) => ({ proxyUid: uid, provider: provider.name, target: host, domain: domain.name, sampledAtMs: atMs, spanMs, ...rates })),
    });
    this.metrics?.hostRound({ provider: provider.name, counters, rates: hostNow, vms: owned });
    const sample: StatsSample = { provider: provider.name, target: host, atMs, host: hostNow, vms };
    for (const listener of this.listeners) {
      try {
        listener(sample);
      } catch (err) {
        this.options.logger.warn({ error: errorMessage(err) }, 'a stats sample listener failed');
      }
    }
    return sample;
  }

  /** The Managed Proxies on `provider`, by the instance name their VM carries. */
  private async owners(provider: string): Promise<Map<string, ProxyRecord>> {
    const owners = new Map<string, ProxyRecord>();
    for (const record of await this.options.store.proxies.list()) {
      if (record.spec.mode === 'Managed' && record.spec.provider === provider) owners.set(instanceName(record.name), record);
    }
    return owners;
  }
}
