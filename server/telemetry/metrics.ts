// Prometheus metrics: one registry per process (kept on globalThis, because Next's dev server
// re-evaluates modules and prom-client refuses a metric name twice) with the default Node
// metrics, the provider target gauge, reconcile outcomes and proxy probe latency.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const reconcileOutcomes = ['ready', 'requeue', 'error', 'quota', 'failed', 'removed', 'skipped'] as const;
export type ReconcileOutcome = (typeof reconcileOutcomes)[number];

export interface Metrics {
  registry: Registry;
  /** 1 when the target's last check was ready, 0 otherwise */
  providerTargetUp: Gauge<'provider' | 'target'>;
  reconcileTotal: Counter<'outcome'>;
  probeDuration: Histogram<'result'>;
}

/** A fresh set of metrics on its own registry (tests use one each). */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    providerTargetUp: new Gauge({
      name: 'proxy_operator_provider_target_up',
      help: 'Whether the provider target passed its last health check (1) or not (0).',
      labelNames: ['provider', 'target'],
      registers: [registry],
    }),
    reconcileTotal: new Counter({
      name: 'proxy_operator_reconcile_total',
      help: 'Reconcile passes by outcome.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    probeDuration: new Histogram({
      name: 'proxy_operator_probe_duration_seconds',
      help: 'Duration of proxy health probes through the proxy, by result.',
      labelNames: ['result'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}

const globalKey = Symbol.for('kvm2-proxies.metrics');
type GlobalWithMetrics = typeof globalThis & { [globalKey]?: Metrics };

/** The process's metrics, default Node metrics included; created once per process. */
export function processMetrics(): Metrics {
  const holder = globalThis as GlobalWithMetrics;
  holder[globalKey] ??= createMetrics({ defaultMetrics: true });
  return holder[globalKey];
}
