// The provider health monitor: every interval, all providers' Check concurrently, each with the
// check timeout as an AbortSignal. Results go to the store (latest + history) and to the gauge
// proxy_operator_provider_target_up{provider,target}. A provider that throws, or that ignores the
// abort for a grace period past the timeout, is recorded as failing on the targets it names
// (checkTargets, with their known details) or else had before, with a reason of kvm2's table:
// Timeout for the overrun, APIError for the throw.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Provider, Target } from '@/server/providers/contract';
import type { Store } from '@/server/store';
import type { ProviderHealth } from '@/server/store/provider-health';
import type { Metrics } from '@/server/telemetry/metrics';
import { tracer } from '@/server/telemetry/tracing';
import { isoTime } from './clock';
import { errorMessage } from '@/lib/error-message';
import type { ProviderLookup } from './provider-set';
import { type LoopOptions, Ticker } from './ticker';

export interface MonitorOptions extends LoopOptions {
  providers: ProviderLookup;
  store: Store;
  metrics?: Metrics;
  timeoutMs: number;
  /** how long past the timeout a provider may take to report its own Timeout targets */
  graceMs?: number;
  /** told every recorded check result (the live feed) */
  onChecked?(health: ProviderHealth): void;
}

class CheckTimeoutError extends Error {
  readonly code = 'ERR_CHECK_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`the provider check did not finish within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** One target's check inside its `providerhealth.check` span; a target that is not ready is an Error. */
function traceTarget(options: { provider: Provider; target: string }, check: () => Promise<Target>): Promise<Target> {
  const attributes = { 'provider.name': options.provider.name, 'provider.type': options.provider.type, 'provider.target': options.target };
  return tracer().startActiveSpan('providerhealth.check', { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const target = await check();
      span.setAttribute('provider.reason', target.reason);
      if (!target.ready) span.setStatus({ code: SpanStatusCode.ERROR, message: `${target.reason}: ${target.message}` });
      return target;
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}

export class Monitor {
  private readonly ticker: Ticker;
  /** target names per provider as last recorded, for gauge clean-up and synthesised failures */
  private readonly knownTargets = new Map<string, string[]>();

  constructor(private readonly options: MonitorOptions) {
    this.ticker = new Ticker({
      name: 'provider-health',
      clock: options.clock,
      intervalMs: options.intervalMs,
      logger: options.logger,
      run: (signal) => this.runOnce(signal).then(() => undefined),
    });
  }

  start(): void {
    this.ticker.start();
  }

  stop(): Promise<void> {
    return this.ticker.stop();
  }

  /** One round now (after a config reload), then the regular schedule. */
  runNow(): Promise<void> {
    return this.ticker.runNow();
  }

  async runOnce(signal?: AbortSignal): Promise<ProviderHealth[]> {
    const providers = this.options.providers.list();
    this.forgetRemoved(new Set(providers.map((provider) => provider.name)));
    return Promise.all(providers.map((provider) => this.checkProvider(provider, signal)));
  }

  private async checkProvider(provider: Provider, parent?: AbortSignal): Promise<ProviderHealth> {
    const { clock, timeoutMs } = this.options;
    const startedAt = clock.now();
    let targets: Target[];
    try {
      targets = await this.checkWithTimeout(provider, parent);
    } catch (err) {
      const reason = err instanceof CheckTimeoutError ? 'Timeout' : 'APIError';
      targets = await this.failedTargets(provider, { reason, message: errorMessage(err), latencyMs: Math.min(clock.now() - startedAt, timeoutMs) });
      this.options.logger.warn({ provider: provider.name, reason, error: errorMessage(err) }, 'provider check failed');
    }
    if (parent?.aborted) return { provider: provider.name, targets };
    await this.options.store.health.record({ provider: provider.name, targets, nowMs: clock.now() });
    this.updateGauge(provider.name, targets);
    this.options.onChecked?.({ provider: provider.name, targets });
    return { provider: provider.name, targets };
  }

  private async checkWithTimeout(provider: Provider, parent?: AbortSignal): Promise<Target[]> {
    const previous = (await this.options.store.health.latest(provider.name))[0]?.targets;
    return this.checkUntil(provider, { parent, previous });
  }

  private checkUntil(provider: Provider, { parent, previous }: { parent?: AbortSignal; previous?: Target[] }): Promise<Target[]> {
    const { clock, timeoutMs, graceMs = 1_000 } = this.options;
    const controller = new AbortController();
    let graceTimer: unknown;
    let onParentAbort = () => {};
    // Stopping the monitor does not wait for a provider that ignores its signal.
    const deadline = new Promise<never>((_resolve, reject) => {
      graceTimer = clock.setTimeout(() => reject(new CheckTimeoutError(timeoutMs)), timeoutMs + graceMs);
      onParentAbort = () => {
        controller.abort(parent?.reason);
        reject(parent?.reason);
      };
    });
    if (parent?.aborted) onParentAbort();
    else parent?.addEventListener('abort', onParentAbort, { once: true });
    const abortTimer = clock.setTimeout(() => controller.abort(new CheckTimeoutError(timeoutMs)), timeoutMs);
    const aroundTarget = (target: string, check: () => Promise<Target>) => traceTarget({ provider, target }, check);
    return Promise.race([provider.check({ signal: controller.signal, aroundTarget, previous }), deadline]).finally(() => {
      clock.clearTimeout(abortTimer);
      clock.clearTimeout(graceTimer);
      parent?.removeEventListener('abort', onParentAbort);
    });
  }

  private async failedTargets(provider: Provider, failure: { reason: string; message: string; latencyMs: number }): Promise<Target[]> {
    const checkedAt = isoTime(this.options.clock);
    const named = provider.checkTargets?.() ?? [];
    if (named.length > 0) {
      return named.map(({ name, details, pool }) => ({
        name,
        ready: false,
        details: { ...details },
        ...(pool ? { pool: { ...pool } } : {}),
        checkedAt,
        ...failure,
      }));
    }
    const names =
      this.knownTargets.get(provider.name) ?? (await this.options.store.health.latest(provider.name))[0]?.targets.map((target) => target.name) ?? [];
    return (names.length > 0 ? names : [provider.name]).map((name) => ({ name, ready: false, details: {}, checkedAt, ...failure }));
  }

  private updateGauge(providerName: string, targets: Target[]): void {
    const gauge = this.options.metrics?.providerTargetUp;
    const names = targets.map((target) => target.name);
    for (const stale of this.knownTargets.get(providerName) ?? []) {
      if (!names.includes(stale)) gauge?.remove({ provider: providerName, target: stale });
    }
    for (const target of targets) gauge?.set({ provider: providerName, target: target.name }, target.ready ? 1 : 0);
    this.knownTargets.set(providerName, names);
  }

  private forgetRemoved(current: Set<string>): void {
    for (const [providerName, names] of this.knownTargets) {
      if (current.has(providerName)) continue;
      for (const target of names) this.options.metrics?.providerTargetUp.remove({ provider: providerName, target });
      this.knownTargets.delete(providerName);
    }
  }
}
