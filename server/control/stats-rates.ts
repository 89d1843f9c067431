// Rates from cumulative counters: CPU % and bytes per second between two samples of the same
// instance or host. A counter that went down was reset (the VM was started again, a NIC was
// replaced), and an instance with a new run id was started again: either way the interval has no
// rate (null), never a spike, and the new value is the baseline for the next one.
import type { DomainCounters, HostCounters } from '@/server/providers/host-stats';
import type { VmValues } from '@/server/store/stats-history';

/** A VM's rates, as the stats history stores them. */
export type VmRates = VmValues;

export interface HostRates {
  /** busy time over all CPUs' time, percent (100: every CPU busy) */
  cpuPercent: number | null;
  memoryUsedBytes: number;
  memoryTotalBytes: number;
}

/** A sample as the rate needs it: its counters and when it was read (epoch ms). */
export interface Timed<T> {
  atMs: number;
  counters: T;
}

/** Growth per second of one counter, or null without a usable previous value or after a reset. */
export function counterRate(options: { previous: bigint | undefined; current: bigint | undefined; elapsedMs: number; scale?: number }): number | null {
  const { previous, current, elapsedMs } = options;
  if (previous === undefined || current === undefined || elapsedMs <= 0 || current < previous) return null;
  return (Number(current - previous) * (options.scale ?? 1)) / (elapsedMs / 1000);
}

type CounterField = 'cpuTimeNs' | 'netRxBytes' | 'netTxBytes' | 'diskReadBytes' | 'diskWriteBytes';

export function vmRates(previous: Timed<DomainCounters> | undefined, current: Timed<DomainCounters>): VmRates {
  // A new run id: every counter restarted, even one that has already grown past its old value.
  const comparable = previous !== undefined && previous.counters.runId === current.counters.runId && current.counters.running;
  const elapsedMs = comparable ? current.atMs - previous.atMs : 0;
  const rate = (field: CounterField, scale?: number) =>
    comparable ? counterRate({ previous: previous.counters[field], current: current.counters[field], elapsedMs, scale }) : null;
  const cpuPerSecond = rate('cpuTimeNs', 1e-9);
  return {
    cpuPercent: cpuPerSecond === null ? null : cpuPerSecond * 100,
    memoryBytes: current.counters.memoryBytes ?? null,
    memoryTotalBytes: current.counters.memoryTotalBytes ?? null,
    netRxBps: rate('netRxBytes'),
    netTxBps: rate('netTxBytes'),
    diskReadBps: rate('diskReadBytes'),
    diskWriteBps: rate('diskWriteBytes'),
  };
}

export function hostRates(previous: HostCounters | undefined, current: HostCounters): HostRates {
  const memory = { memoryUsedBytes: Math.max(0, current.memoryTotalBytes - current.memoryFreeBytes), memoryTotalBytes: current.memoryTotalBytes };
  if (!previous || current.cpuTotalNs <= previous.cpuTotalNs || current.cpuBusyNs < previous.cpuBusyNs) return { cpuPercent: null, ...memory };
  const busy = Number(current.cpuBusyNs - previous.cpuBusyNs);
  const total = Number(current.cpuTotalNs - previous.cpuTotalNs);
  return { cpuPercent: Math.min(100, (busy / total) * 100), ...memory };
}
