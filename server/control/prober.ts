// Proxy health: every interval, probe each Running proxy (Managed with an address, and Static)
// through itself, at most `concurrency` at a time. The result goes to the proxy's probe column
// (the reconciler never writes it): the Healthy condition, latency and egress IP. A proxy is Ready
// when it is Running and its latest probe, for its current address, passed.
import type { Store } from '@/server/store';
import type { EventInput } from '@/server/store/events';
import type { ProbeStatus, ProxyRecord } from '@/server/store/proxies';
import type { Metrics } from '@/server/telemetry/metrics';
import { isoTime } from './clock';
import { setCondition } from './conditions';
import { type ProbeRequest, type ProbeResult, probeProxy } from './probe';
import { type LoopOptions, Ticker } from './ticker';

export interface ProberOptions extends LoopOptions {
  store: Store;
  metrics?: Metrics;
  timeoutMs: number;
  targetUrl?: string;
  ipEchoUrl?: string;
  concurrency?: number;
  /** the probe itself; tests may replace it */
  probe?: (request: ProbeRequest) => Promise<ProbeResult>;
}

/** `ip:port` of a proxy that can be probed now, or undefined. */
export function probeTarget(record: ProxyRecord): string | undefined {
  if (record.deletionRequestedAt || record.status.phase !== 'Running' || !record.status.ip) return undefined;
  return `${record.status.ip}:${record.spec.port}`;
}

export class Prober {
  private readonly ticker: Ticker;
  private readonly inFlight = new Set<string>();
  private readonly kicks = new Set<Promise<void>>();
  private controller = new AbortController();

  constructor(private readonly options: ProberOptions) {
    this.ticker = new Ticker({
      name: 'proxy-probes',
      clock: options.clock,
      intervalMs: options.intervalMs,
      logger: options.logger,
      run: (signal) => this.probeAll(signal),
    });
  }

  start(): void {
    if (this.controller.signal.aborted) this.controller = new AbortController();
    this.ticker.start();
  }

  async stop(): Promise<void> {
    this.controller.abort(new Error('prober stopped'));
    await Promise.all([this.ticker.stop(), ...this.kicks]);
  }

  /** Probes one proxy now (it just became Running); a probe already running for it is enough. */
  kick(name: string): void {
    if (this.controller.signal.aborted) return;
    const { signal } = this.controller;
    const kick = this.options.store.proxies
      .get(name)
      .then((record) => record && this.probeOne(record, signal))
      .catch((err: unknown) => this.options.logger.warn({ proxy: name, err }, 'probe failed'))
      .finally(() => this.kicks.delete(kick));
    this.kicks.add(kick);
  }

  async probeAll(signal?: AbortSignal): Promise<void> {
    const due = (await this.options.store.proxies.list()).filter((record) => probeTarget(record) !== undefined);
    const concurrency = this.options.concurrency ?? 16;
    let next = 0;
    const lane = async () => {
      while (next < due.length && !signal?.aborted) {
        const record = due[next++] as ProxyRecord;
        await this.probeOne(record, signal);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, lane));
  }

  async probeOne(record: ProxyRecord, signal?: AbortSignal): Promise<void> {
    const target = probeTarget(record);
    if (target === undefined || this.inFlight.has(record.uid)) return;
    this.inFlight.add(record.uid);
    try {
      const { status, spec } = record;
      const probe = this.options.probe ?? probeProxy;
      const result = await probe({
        host: status.ip as string,
        port: spec.port,
        targetUrl: this.options.targetUrl,
        ipEchoUrl: this.options.ipEchoUrl,
        timeoutMs: this.options.timeoutMs,
        signal,
        clock: this.options.clock,
      });
      if (signal?.aborted) return;
      this.options.metrics?.probeDuration.observe({ result: result.healthy ? 'healthy' : 'unhealthy' }, result.latencyMs / 1000);
      await this.record(record, target, result);
    } finally {
      this.inFlight.delete(record.uid);
    }
  }

  private async record(record: ProxyRecord, target: string, result: ProbeResult): Promise<void> {
    const { store, clock } = this.options;
    const now = isoTime(clock);
    const previous = record.probe?.target === target ? record.probe : undefined;
    const [condition] = setCondition(previous ? [previous.condition] : [], {
      type: 'Healthy',
      status: result.healthy ? 'True' : 'False',
      reason: result.reason,
      message: result.message,
      now,
    });
    const probe: ProbeStatus = {
      target,
      healthy: result.healthy,
      condition: condition as ProbeStatus['condition'],
      latencyMs: Math.round(result.latencyMs * 10) / 10,
      probedAt: now,
      ...(result.egressIP ? { egressIP: result.egressIP } : previous?.egressIP ? { egressIP: previous.egressIP } : {}),
    };
    const flipped = previous?.healthy !== result.healthy;
    const event: EventInput = result.healthy
      ? { type: 'Normal', reason: 'Healthy', message: `probe through ${target} passed: ${result.message}` }
      : { type: 'Warning', reason: 'Unhealthy', message: `probe through ${target} failed (${result.reason}): ${result.message}` };
    await store.transaction(async (tx) => {
      await tx.proxies.writeProbe(record.uid, probe);
      await tx.probes.record({ proxyUid: record.uid, target, healthy: probe.healthy, latencyMs: probe.latencyMs ?? 0, probedAtMs: Date.parse(now) });
      if (flipped) await tx.events.record(record.uid, { ...event, atMs: clock.now() });
    });
    if (flipped) this.options.logger.info({ proxy: record.name, healthy: result.healthy, reason: result.reason }, 'proxy health changed');
  }
}
