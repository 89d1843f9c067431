// Prometheus metrics: one registry per process (kept on globalThis, because Next's dev server
// re-evaluates modules and prom-client refuses a metric name twice) with the default Node
// metrics, the provider target gauge, reconcile outcomes, proxy probe latency, and the sampler's
// per-Proxy VM and per-host telemetry (server/control/sampler.ts).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const reconcileOutcomes = ['ready', 'requeue', 'error', 'quota', 'failed', 'removed', 'skipped'] as const;
export type ReconcileOutcome = (typeof reconcileOutcomes)[number];

export interface Metrics {
  registry: Registry;
  /** 1 when the target's last check was ready, 0 otherwise */
  providerTargetUp: Gauge<'provider' | 'target'>;
  reconcileTotal: Counter<'outcome'>;
  probeDuration: Histogram<'result'>;
  /** libvirt's cumulative counters, set each sampling round (a VM restart resets them, as Prometheus expects) */
  vmCpuSeconds: Counter<'provider' | 'target' | 'proxy'>;
  vmMemoryBytes: Gauge<'provider' | 'target' | 'proxy'>;
  vmNetworkBytes: Counter<'provider' | 'target' | 'proxy' | 'direction'>;
  hostCpuUsage: Gauge<'provider' | 'target'>;
  hostMemoryUsedBytes: Gauge<'provider' | 'target'>;
  hostMemoryTotalBytes: Gauge<'provider' | 'target'>;
  /** per ProxySet: desired, members, ready, updated, updating, failing (set by the set controller) */
  proxySetReplicas: Gauge<'set' | 'state'>;
  /** the gateway's traffic per Proxy (in: from the Proxy towards the crawler), counted while tunnels are open */
  gatewayBytes: Counter<'proxy' | 'direction'>;
  gatewayTunnelsOpen: Gauge<'proxy'>;
  /** every gateway connection by Proxy and result (`ok`, a failure cause); refusals before a Proxy was chosen have proxy="" */
  gatewayConnections: Counter<'proxy' | 'result'>;
}

const vmLabels = ['provider', 'target', 'proxy'] as const;
const hostLabels = ['provider', 'target'] as const;

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
    vmCpuSeconds: new Counter({
      name: 'proxy_operator_vm_cpu_seconds_total',
      help: "CPU time of the Proxy's VM, every vCPU together.",
      labelNames: vmLabels,
      registers: [registry],
    }),
    vmMemoryBytes: new Gauge({
      name: 'proxy_operator_vm_memory_bytes',
      help: "Memory the Proxy's VM holds on its host (resident).",
      labelNames: vmLabels,
      registers: [registry],
    }),
    vmNetworkBytes: new Counter({
      name: 'proxy_operator_vm_network_bytes_total',
      help: "Bytes through the Proxy's VM's NICs, by direction (in: into the VM).",
      labelNames: [...vmLabels, 'direction'],
      registers: [registry],
    }),
    hostCpuUsage: new Gauge({
      name: 'proxy_operator_host_cpu_usage_ratio',
      help: "Share of the host's CPU time that was busy over the last sampling interval (0-1).",
      labelNames: hostLabels,
      registers: [registry],
    }),
    hostMemoryUsedBytes: new Gauge({
      name: 'proxy_operator_host_memory_used_bytes',
      help: 'Host memory in use (total less free, buffers and cache).',
      labelNames: hostLabels,
      registers: [registry],
    }),
    hostMemoryTotalBytes: new Gauge({
      name: 'proxy_operator_host_memory_total_bytes',
      help: 'Host memory in total.',
      labelNames: hostLabels,
      registers: [registry],
    }),
    proxySetReplicas: new Gauge({
      name: 'proxy_operator_proxyset_replicas',
      help: 'Members of a ProxySet by state: desired, members, ready, updated (current template), updating, failing.',
      labelNames: ['set', 'state'],
      registers: [registry],
    }),
    gatewayBytes: new Counter({
      name: 'proxy_operator_gateway_bytes_total',
      help: 'Bytes through the gateway per Proxy, by direction (in: from the Proxy towards the crawler).',
      labelNames: ['proxy', 'direction'],
      registers: [registry],
    }),
    gatewayTunnelsOpen: new Gauge({
      name: 'proxy_operator_gateway_tunnels_open',
      help: 'Gateway connections open now, per Proxy.',
      labelNames: ['proxy'],
      registers: [registry],
    }),
    gatewayConnections: new Counter({
      name: 'proxy_operator_gateway_connections_total',
      help: 'Gateway connections by Proxy and result (ok or the failure cause; proxy="" when refused before one was chosen).',
      labelNames: ['proxy', 'result'],
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
