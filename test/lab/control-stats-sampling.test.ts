// Stats on the lab: a Proxy's VM running on lab1 (real libvirtd over real sshd) is sampled every
// second by the runtime's sampler; its CPU time counter moves between rounds (Prometheus shows it
// growing), its rates are stored, and the API functions behind the Proxy's, the host's and the
// overview's stats routes serve them.
import { describe, expect, it } from 'vitest';
import type { StatsSample } from '@/server/control/sampler';
import { instanceName } from '@/server/control/names';
import { domainState, labProxy, recordedInstance, singleProxySuite } from './control-support';

const suite = singleProxySuite({ suffix: 'stats', env: { STATS_SAMPLE_INTERVAL: '1s' } });

/** The Proxy's CPU seconds as the metrics endpoint shows them, or undefined before the first sample. */
async function cpuSeconds(proxy: string): Promise<number | undefined> {
  const text = await suite.runtime.services.metrics.registry.metrics();
  const line = text.split('\n').find((entry) => entry.startsWith('proxy_operator_vm_cpu_seconds_total{') && entry.includes(`proxy="${proxy}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('stats sampling on the lab', () => {
  it('samples a running Proxy VM: CPU time moves, rates are stored and served', async () => {
    const { runtime, entry, proxy } = suite;
    const domain = instanceName(proxy);
    const samples: StatsSample[] = [];
    runtime.loops.sampler.onSample((sample) => samples.push(sample));
    await runtime.services.proxies.create(labProxy({ name: proxy, provider: entry, zone: 'lab1' }));
    expect(await recordedInstance(runtime, proxy)).toBe(`hosts/lab1/domains/${domain}`);
    await expect.poll(() => domainState(domain), { timeout: 60_000, interval: 250 }).toBe('running');

    const ours = () => samples.flatMap((sample) => sample.vms.filter((vm) => vm.proxy === proxy).map((vm) => ({ ...vm, target: sample.target })));
    await expect.poll(() => cpuSeconds(proxy), { message: 'a first sample of the VM', timeout: 15_000, interval: 250 }).toBeGreaterThan(0);
    const first = (await cpuSeconds(proxy))!;
    // The VM's firmware works through its boot order under emulation: CPU time keeps growing.
    await expect.poll(() => cpuSeconds(proxy), { message: 'the CPU time counter to move', timeout: 20_000, interval: 500 }).toBeGreaterThan(first);
    await expect
      .poll(() => ours().filter((vm) => (vm.cpuPercent ?? 0) > 0).length, { message: 'a sample with a CPU rate', timeout: 15_000, interval: 250 })
      .toBeGreaterThan(0);
    const withRate = ours().find((vm) => (vm.cpuPercent ?? 0) > 0)!;
    expect(withRate).toMatchObject({ target: 'lab1', domain, memoryTotalBytes: 256 * 1024 * 1024 });
    expect(withRate.netRxBps).not.toBeNull();

    // The 1 h window averages into 10 s steps: the 1 s samples so far may share one step.
    const stats = await runtime.services.stats.proxy({ name: proxy, window: '1h' });
    expect(stats.stepSeconds).toBe(10);
    expect(stats.points.some((point) => (point.cpuPercent ?? 0) > 0)).toBe(true);
    expect(stats.points.at(-1)?.memoryTotalBytes).toBe(256 * 1024 * 1024);
    const host = await runtime.services.stats.host({ provider: entry, host: 'lab1', window: '1h' });
    expect(host.points.at(-1)).toMatchObject({ cpuPercent: expect.any(Number), memoryTotalBytes: expect.any(Number) });
    expect(host.points.at(-1)!.memoryUsedBytes!).toBeLessThan(host.points.at(-1)!.memoryTotalBytes!);
    expect(host.domains).toEqual([expect.objectContaining({ domain, proxy })]);
    expect((await runtime.services.stats.traffic()).busiest.map((entryRow) => entryRow.proxy)).toEqual([proxy]);
    const rounds = samples.filter((sample) => sample.target === 'lab1').length;
    console.info(`${rounds} rounds on lab1; cpu seconds ${first} -> ${await cpuSeconds(proxy)}; last CPU ${withRate.cpuPercent?.toFixed(1)} %`);
  });
});
