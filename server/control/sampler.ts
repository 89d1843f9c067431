// The stats sampler: every interval, one round per host of every provider that can read its hosts'
// telemetry (the host-stats capability), all hosts at once. Each round's counters become rates
// against the host's previous round (stats-rates.ts), the Proxies' VMs and the host go to the store
// and to the Prometheus series, and listeners (the live event stream) get the new sample.
//
// Each host's read has its own deadline, so a host whose link hangs (an RPC that never answers, a
// half-open TCP link the SSH keepalive has not noticed yet) cannot hold up the round, and with it
// every other host's samples. Past the deadline the sampler only stops waiting: aborting the call
// would kill the pooled connection the reconciler shares (server/libvirt/index.ts), and the call's
// own budget or the keepalive ends it soon enough. Until it settles the host gets no second call,
// and whatever it answers is dropped (when libvirtd read those counters is unknown, so they can be
// neither a sample nor a baseline); the next read on time gets its rate against the last baseline.
import { AbortFanOut } from '@/lib/abort-fan-out';
import type { Provider } from '@/server/providers/contract';
import type { DomainCounters, HostCounters } from '@/server/providers/host-stats';
import type { ProxyRecord, Store } from '@/server/store';
import type { Metrics } from '@/server/telemetry/metrics';
import type { TimerHandle } from './clock';
import { instanceName } from './names';
import { errorMessage } from '@/lib/error-message';
import type { ProviderLookup } from './provider-set';
import { StatsMetrics } from './stats-metrics';
import { hostRates, vmRates, type HostRates, type Timed, type VmRates } from './stats-rates';
import { type LoopOptions, Ticker } from './ticker';

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

export interface SamplerOptions extends LoopOptions {
  store: Store;
  providers: ProviderLookup;
  metrics?: Metrics;
  /** how long one host's read may take before its round is abandoned; half the interval by default */
  timeoutMs?: number;
  /**
   * when the first round runs after start (default at once). The runtime offsets it so a start
   * does not dial every host for stats while the health check dials them too; the first round is
   * only the rates' baseline, so nothing shows later for it.
   */
  firstRoundDelayMs?: number;
}

interface HostMemory {
  atMs: number;
  counters: HostCounters;
  domains: Map<string, Timed<DomainCounters>>;
}

/** What the last round of a host went wrong with, for one log line per change. */
type Trouble = 'failing' | 'late';

const late = Symbol('late');

export class Sampler {
  private readonly ticker: Ticker;
  private readonly previous = new Map<string, HostMemory>();
  private readonly listeners = new Set<SampleListener>();
  private readonly trouble = new Map<string, Trouble>();
  /** hosts whose abandoned read has not settled yet */
  private readonly abandoned = new Set<string>();
  private readonly metrics: StatsMetrics | undefined;
  // Half the interval: a healthy host answers its six RPCs in milliseconds, and the one round in
  // which a host gets stuck then ends at most half an interval late for the others (later rounds
  // skip that host at once while its call is still out).
  private readonly timeoutMs: number;

  constructor(private readonly options: SamplerOptions) {
    this.ticker = new Ticker({
      name: 'stats-sampler',
      clock: options.clock,
      intervalMs: options.intervalMs,
      logger: options.logger,
      run: (signal) => this.runOnce(signal).then(() => undefined),
    });
    this.metrics = options.metrics ? new StatsMetrics(options.metrics) : undefined;
    this.timeoutMs = options.timeoutMs ?? Math.ceil(options.intervalMs / 2);
  }

  start(): void {
    this.ticker.start(this.options.firstRoundDelayMs ?? 0);
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
    // Each host's read gets a child of the loop's signal: the loop's signal carries one listener
    // however many hosts there are (hundreds would each add one: MaxListenersExceededWarning).
    const fan = new AbortFanOut(signal);
    const rounds = this.options.providers
      .list()
      .flatMap((provider) => (provider.stats ? provider.stats.hosts().map((host) => this.sampleHost(provider, host, { signal, fan })) : []));
    try {
      const samples = await Promise.all(rounds);
      return samples.filter((sample): sample is StatsSample => sample !== undefined);
    } finally {
      fan.close();
    }
  }

  private async sampleHost(provider: Provider, host: string, round: { signal?: AbortSignal; fan: AbortFanOut }): Promise<StatsSample | undefined> {
    const { signal } = round;
    const key = `${provider.name}\u0000${host}`;
    const fields = { provider: provider.name, target: host };
    // A second call would only queue behind the first on a stuck link.
    if (this.abandoned.has(key)) return undefined;
    const child = round.fan.child();
    const reading = provider.stats!.sample(host, { signal: child.signal });
    // An abandoned read keeps its child until it settles, so stopping the loop still ends it.
    void reading.then(child.done, child.done);
    let counters: HostCounters | typeof late;
    try {
      counters = await this.withinDeadline(reading);
    } catch (err) {
      if (signal?.aborted) return undefined;
      if (this.trouble.get(key) === 'failing') this.options.logger.debug({ ...fields, error: errorMessage(err) }, 'sampling a host failed again');
      else this.options.logger.warn({ ...fields, error: errorMessage(err) }, 'sampling a host failed; its charts have a gap until it answers');
      this.trouble.set(key, 'failing');
      // After a gap the counters may have been reset any number of times: start again.
      this.previous.delete(key);
      return undefined;
    }
    if (counters === late) {
      this.abandon(key, reading);
      if (this.trouble.get(key) !== 'late') {
        this.options.logger.warn(
          { ...fields, timeoutMs: this.timeoutMs },
          'sampling a host did not answer within its deadline; its charts have a gap until it answers in time',
        );
      }
      this.trouble.set(key, 'late');
      return undefined;
    }
    if (this.trouble.delete(key)) this.options.logger.info(fields, 'sampling a host works again');
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
      vms: owned.map(({ uid, counters: domain, rates, spanMs }) => ({
        proxyUid: uid,
        provider: provider.name,
        target: host,
        domain: domain.name,
        sampledAtMs: atMs,
        spanMs,
        ...rates,
      })),
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

  /** The read's counters, or `late` when the host's deadline passes first. */
  private async withinDeadline(reading: Promise<HostCounters>): Promise<HostCounters | typeof late> {
    const { clock } = this.options;
    const timeoutMs = this.timeoutMs;
    let timer: TimerHandle | undefined;
    const deadline = new Promise<typeof late>((resolve) => {
      timer = clock.setTimeout(() => resolve(late), timeoutMs);
    });
    try {
      return await Promise.race([reading, deadline]);
    } finally {
      clock.clearTimeout(timer);
    }
  }

  /** Stops waiting for `reading`; the host is read again once it settles. */
  private abandon(key: string, reading: Promise<HostCounters>): void {
    this.abandoned.add(key);
    void reading
      .then(
        () => undefined,
        // The link failed under it: like any failure, the next read starts a new baseline.
        () => this.previous.delete(key),
      )
      .finally(() => this.abandoned.delete(key));
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
