// The sampler's rounds as Prometheus series: per Proxy its VM's CPU seconds, memory and NIC bytes,
// per host its CPU usage and memory. Counters carry libvirt's own cumulative values (set by
// remove + inc, prom-client has no set for counters); series of Proxies and hosts that are gone
// are removed.
import type { DomainCounters, HostCounters } from '@/server/providers/host-stats';
import type { Metrics } from '@/server/telemetry/metrics';
import type { HostRates } from './stats-rates';

type VmLabels = { provider: string; target: string; proxy: string };

export class StatsMetrics {
  /** the Proxy label sets last set, per `provider\0target` */
  private readonly proxies = new Map<string, VmLabels[]>();

  constructor(private readonly metrics: Metrics) {}

  hostRound(options: { provider: string; counters: HostCounters; rates: HostRates; vms: Array<{ proxy: string; counters: DomainCounters }> }): void {
    const { provider, counters, rates } = options;
    const host = { provider, target: counters.host };
    const m = this.metrics;
    if (rates.cpuPercent !== null) m.hostCpuUsage.set(host, rates.cpuPercent / 100);
    m.hostMemoryUsedBytes.set(host, rates.memoryUsedBytes);
    m.hostMemoryTotalBytes.set(host, rates.memoryTotalBytes);
    const key = `${provider}\u0000${counters.host}`;
    const current: VmLabels[] = [];
    for (const { proxy, counters: vm } of options.vms) {
      const labels = { ...host, proxy };
      current.push(labels);
      m.vmCpuSeconds.remove(labels);
      m.vmCpuSeconds.inc(labels, Number(vm.cpuTimeNs ?? 0n) / 1e9);
      if (vm.memoryBytes !== undefined) m.vmMemoryBytes.set(labels, vm.memoryBytes);
      for (const [direction, bytes] of [
        ['in', vm.netRxBytes],
        ['out', vm.netTxBytes],
      ] as const) {
        const withDirection = { ...labels, direction };
        m.vmNetworkBytes.remove(withDirection);
        m.vmNetworkBytes.inc(withDirection, Number(bytes ?? 0n));
      }
    }
    const kept = new Set(current.map((labels) => labels.proxy));
    for (const stale of this.proxies.get(key) ?? []) if (!kept.has(stale.proxy)) this.removeProxy(stale);
    this.proxies.set(key, current);
  }

  private removeProxy(labels: VmLabels): void {
    const m = this.metrics;
    m.vmCpuSeconds.remove(labels);
    m.vmMemoryBytes.remove(labels);
    for (const direction of ['in', 'out']) m.vmNetworkBytes.remove({ ...labels, direction });
  }
}
