// Rates from libvirt's cumulative counters: CPU % and bytes per second between two samples; a
// counter that went down, or a VM started again (new run id), gives no rate for that interval
// (never a spike) and becomes the baseline for the next one.
import { describe, expect, it } from 'vitest';
import { counterRate, hostRates, vmRates, type Timed } from '@/server/control/stats-rates';
import type { DomainCounters, HostCounters } from '@/server/providers/host-stats';

const vm = (atMs: number, counters: Partial<DomainCounters> = {}): Timed<DomainCounters> => ({
  atMs,
  counters: {
    name: 'proxy-1',
    runId: 7,
    state: 'running',
    running: true,
    cpuTimeNs: 0n,
    netRxBytes: 0n,
    netTxBytes: 0n,
    diskReadBytes: 0n,
    diskWriteBytes: 0n,
    memoryBytes: 100,
    memoryTotalBytes: 256,
    ...counters,
  },
});

describe('counter rates', () => {
  it.each([
    { name: 'growth per second', previous: 1_000n, current: 6_000n, elapsedMs: 10_000, rate: 500 },
    { name: 'no growth', previous: 5n, current: 5n, elapsedMs: 10_000, rate: 0 },
    { name: 'a counter that went down (reset): no rate', previous: 9_000n, current: 100n, elapsedMs: 10_000, rate: null },
    { name: 'no previous value', previous: undefined, current: 100n, elapsedMs: 10_000, rate: null },
    { name: 'no time passed', previous: 1n, current: 2n, elapsedMs: 0, rate: null },
  ])('$name', ({ previous, current, elapsedMs, rate }) => {
    expect(counterRate({ previous, current, elapsedMs })).toBe(rate);
  });

  it('a VM: CPU % of one host CPU and bytes per second over the interval', () => {
    const rates = vmRates(
      vm(0, { cpuTimeNs: 1_000_000_000n }),
      vm(10_000, { cpuTimeNs: 6_000_000_000n, netRxBytes: 10_000n, netTxBytes: 2_000n, diskReadBytes: 40_960n, diskWriteBytes: 4_096n }),
    );
    expect(rates).toEqual({ cpuPercent: 50, memoryBytes: 100, memoryTotalBytes: 256, netRxBps: 1_000, netTxBps: 200, diskReadBps: 4_096, diskWriteBps: 409.6 });
  });

  it('a VM started again (counters went down): no rate for the interval, then rates from the new baseline', () => {
    const before = vm(0, { runId: 7, cpuTimeNs: 900_000_000_000n, netRxBytes: 5_000_000n });
    const restarted = vm(10_000, { runId: 8, cpuTimeNs: 2_000_000_000n, netRxBytes: 1_000n });
    expect(vmRates(before, restarted)).toMatchObject({
      cpuPercent: null,
      netRxBps: null,
      netTxBps: null,
      diskReadBps: null,
      diskWriteBps: null,
      memoryBytes: 100,
    });
    expect(vmRates(restarted, vm(20_000, { runId: 8, cpuTimeNs: 3_000_000_000n, netRxBytes: 11_000n }))).toMatchObject({ cpuPercent: 10, netRxBps: 1_000 });
  });

  it('a VM started again whose counters already passed the old values (new run id): still no spike', () => {
    const rates = vmRates(
      vm(0, { runId: 7, cpuTimeNs: 1_000n, netRxBytes: 10n }),
      vm(10_000, { runId: 9, cpuTimeNs: 50_000_000_000n, netRxBytes: 900_000_000n }),
    );
    expect(rates.cpuPercent).toBeNull();
    expect(rates.netRxBps).toBeNull();
  });

  it('one counter reset (a NIC replaced) leaves the other rates alone', () => {
    const rates = vmRates(vm(0, { netTxBytes: 1_000_000n, cpuTimeNs: 0n }), vm(10_000, { netTxBytes: 10n, cpuTimeNs: 1_000_000_000n }));
    expect(rates.netTxBps).toBeNull();
    expect(rates.cpuPercent).toBe(10);
  });

  it('a host: busy share of all CPUs, memory used as total less free', () => {
    const host = (busy: bigint, total: bigint): HostCounters => ({
      host: 'h1',
      cpus: 4,
      cpuBusyNs: busy,
      cpuTotalNs: total,
      memoryTotalBytes: 8_000,
      memoryFreeBytes: 3_000,
      domains: [],
    });
    expect(hostRates(undefined, host(0n, 0n))).toEqual({ cpuPercent: null, memoryUsedBytes: 5_000, memoryTotalBytes: 8_000 });
    expect(hostRates(host(1_000n, 10_000n), host(2_000n, 14_000n))).toEqual({ cpuPercent: 25, memoryUsedBytes: 5_000, memoryTotalBytes: 8_000 });
    // libvirtd restarted on a rebooted host: its counters start again.
    expect(hostRates(host(9_000n, 90_000n), host(10n, 100n)).cpuPercent).toBeNull();
  });
});
