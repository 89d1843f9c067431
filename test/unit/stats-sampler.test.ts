// The stats sampler over kvm2 on an in-memory libvirt: one round per host reads every domain's
// counters in a constant number of RPCs, turns them into rates against the previous round, stores
// the Proxies' VMs and the host, sets the Prometheus series, and hands the sample to listeners;
// foreign and shut-off domains are not stored, a restarted VM shows no spike, a failing host
// leaves a gap and starts again from a new baseline.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { proxySpecSchema } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import { Sampler, type StatsSample } from '@/server/control/sampler';
import { DomainState } from '@/server/libvirt';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { openStore, type Store } from '@/server/store';
import { createMetrics, type Metrics } from '@/server/telemetry/metrics';
import { providerSetOf, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor, type FakeDomain } from '@/test/fakes/fake-libvirt';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';

const gib = 1024 ** 3;
let dir: ReturnType<typeof tempDir>;
let store: Store;
let metrics: Metrics;
let nowMs = Date.UTC(2026, 11, 1, 12, 0, 0);
const clock = { now: () => nowMs, setTimeout: () => undefined, clearTimeout: () => {} };

beforeEach(async () => {
  dir = tempDir('stats-sampler-');
  store = await openStore({ dataDir: dir.path, logger: silentLogger() });
  metrics = createMetrics();
});
afterEach(async () => {
  await store.close();
  dir.remove();
});

async function addProxy(name: string, uid: string): Promise<void> {
  const spec = proxySpecSchema.parse({ mode: 'Managed', provider: 'kvm2-home', placement: { zone: 'h1', machineType: 'small', image: 'debian-13' } });
  await store.proxies.insert({ uid, name, spec, now: new Date(nowMs).toISOString() });
}

function runningDomain(h1: FakeHypervisor, name: string, counters: { cpuNs: bigint; rx: bigint; tx: bigint }): FakeDomain {
  return h1.addDomain({
    name,
    state: DomainState.Running,
    stats: {
      cpu: { timeNs: counters.cpuNs },
      balloon: { currentKiB: 262_144n, rssKiB: 131_072n },
      interfaces: [
        { name: 'vnet0', rxBytes: counters.rx, txBytes: counters.tx, rxPackets: 0n, rxErrors: 0n, rxDrops: 0n, txPackets: 0n, txErrors: 0n, txDrops: 0n },
      ],
      blocks: [{ name: 'vda', readBytes: 0n, writeBytes: 0n, readRequests: 0n, writeRequests: 0n }],
    },
  });
}

async function setup(options: { extraDomains?: number } = {}) {
  const h1 = new FakeHypervisor();
  const provider = createKvm2Provider({
    settings: kvm2Settings({ hosts: [{ name: 'h1', address: 'h1.lan', user: 'admin', bridge: 'br0' }] }),
    backend: new FakeHostBackend({ h1 }),
    logger: silentLogger(),
  });
  await addProxy('alpha', 'uid-alpha');
  const alpha = runningDomain(h1, instanceName('alpha'), { cpuNs: 1_000_000_000n, rx: 1_000n, tx: 500n });
  runningDomain(h1, 'someone-elses-vm', { cpuNs: 5n, rx: 5n, tx: 5n });
  h1.addDomain({ name: instanceName('stopped-one') });
  await addProxy('stopped-one', 'uid-stopped');
  for (let index = 0; index < (options.extraDomains ?? 0); index += 1) runningDomain(h1, `extra-${index}`, { cpuNs: 1n, rx: 1n, tx: 1n });
  const sampler = new Sampler({ store, clock, metrics, providers: await providerSetOf([provider]), logger: silentLogger(), intervalMs: 10_000 });
  const samples: StatsSample[] = [];
  sampler.onSample((sample) => samples.push(sample));
  return { h1, alpha, sampler, samples, provider };
}

const rpcsOf = async (h1: FakeHypervisor, work: () => Promise<unknown>) => {
  const before = h1.calls.length;
  await work();
  return h1.calls.slice(before).map((call) => call.method);
};

describe('stats sampler', () => {
  it('turns two rounds into rates for the Proxy’s VM and the host, stores them and tells listeners', async () => {
    const { h1, alpha, sampler, samples } = await setup();
    await sampler.runOnce();
    nowMs += 10_000;
    alpha.stats!.cpu = { timeNs: 3_000_000_000n };
    alpha.stats!.interfaces![0] = { ...alpha.stats!.interfaces![0]!, rxBytes: 101_000n, txBytes: 20_500n };
    h1.cpuStatsNs = { user: 6_000_000_000n, kernel: 1_000_000_000n, idle: 21_000_000_000n, iowait: 0n };
    await sampler.runOnce();
    expect(samples).toHaveLength(2);
    expect(samples[0]!.vms).toEqual([expect.objectContaining({ proxy: 'alpha', cpuPercent: null, netRxBps: null, memoryBytes: 128 * 1024 * 1024 })]);
    expect(samples[1]).toMatchObject({
      provider: 'kvm2-home',
      target: 'h1',
      host: { cpuPercent: 25, memoryTotalBytes: 8 * gib, memoryUsedBytes: 5 * gib },
      vms: [{ proxy: 'alpha', domain: instanceName('alpha'), cpuPercent: 20, netRxBps: 10_000, netTxBps: 2_000, memoryTotalBytes: 256 * 1024 * 1024 }],
    });
    const history = await store.stats.proxyHistory({ proxyUid: 'uid-alpha', sinceMs: 0, stepMs: 10_000 });
    expect(history.map((point) => point.cpuPercent)).toEqual([null, 20]);
    expect(await store.stats.proxyHistory({ proxyUid: 'uid-stopped', sinceMs: 0, stepMs: 10_000 })).toEqual([]);
    expect((await store.stats.domainHistories({ provider: 'kvm2-home', target: 'h1', sinceMs: 0, stepMs: 10_000 })).map((series) => series.domain)).toEqual([
      instanceName('alpha'),
    ]);
    expect(await store.stats.trafficByProxy(0)).toEqual([{ proxyUid: 'uid-alpha', rxBytes: 100_000, txBytes: 20_000 }]);
  });

  it('sets the Prometheus series from libvirt’s counters', async () => {
    const { h1, sampler } = await setup();
    await sampler.runOnce();
    nowMs += 10_000;
    h1.cpuStatsNs = { user: 5_000_000_000n, kernel: 2_000_000_000n, idle: 17_000_000_000n, iowait: 0n };
    await sampler.runOnce();
    const text = await metrics.registry.metrics();
    const labels = 'provider="kvm2-home",target="h1",proxy="alpha"';
    expect(text).toContain(`proxy_operator_vm_cpu_seconds_total{${labels}} 1`);
    expect(text).toContain(`proxy_operator_vm_memory_bytes{${labels}} ${128 * 1024 * 1024}`);
    expect(text).toContain(`proxy_operator_vm_network_bytes_total{${labels},direction="in"} 1000`);
    expect(text).toContain(`proxy_operator_vm_network_bytes_total{${labels},direction="out"} 500`);
    expect(text).toContain(`proxy_operator_host_memory_total_bytes{provider="kvm2-home",target="h1"} ${8 * gib}`);
    expect(text).toContain('proxy_operator_host_cpu_usage_ratio{provider="kvm2-home",target="h1"} 0.5');
    expect(text).not.toContain('someone-elses-vm');
  });

  it('reads a host in six RPCs per round, with 3 domains or with 103', async () => {
    const few = await setup();
    const fewRpcs = await rpcsOf(few.h1, () => few.sampler.runOnce());
    await store.sql.run('DELETE FROM proxies');
    const many = await setup({ extraDomains: 100 });
    const manyRpcs = await rpcsOf(many.h1, () => many.sampler.runOnce());
    expect(fewRpcs.sort()).toEqual([
      'connectGetAllDomainStats',
      'nodeGetCpuStats',
      'nodeGetCpuStats',
      'nodeGetInfo',
      'nodeGetMemoryStats',
      'nodeGetMemoryStats',
    ]);
    expect(manyRpcs.sort()).toEqual(fewRpcs);
  });

  it('shows no spike when the VM was started again between rounds (lower counters, new run id)', async () => {
    const { h1, alpha, sampler, samples } = await setup();
    await sampler.runOnce();
    nowMs += 10_000;
    h1.domains.get(alpha.name)!.state = DomainState.Shutoff;
    await sampler.runOnce();
    h1.domains.get(alpha.name)!.state = DomainState.Running;
    alpha.stats!.cpu = { timeNs: 200_000_000n };
    nowMs += 10_000;
    await sampler.runOnce();
    nowMs += 10_000;
    alpha.stats!.cpu = { timeNs: 1_200_000_000n };
    await sampler.runOnce();
    expect(samples.map((sample) => sample.vms.map((vm) => vm.cpuPercent))).toEqual([[null], [], [null], [10]]);
  });

  it('a host that fails leaves a gap, warns once, and starts again from a new baseline', async () => {
    const { h1, sampler, samples } = await setup();
    await sampler.runOnce();
    h1.fail('connectGetAllDomainStats', 'ErrInternalError', { times: 2 });
    nowMs += 10_000;
    expect(await sampler.runOnce()).toEqual([]);
    nowMs += 10_000;
    expect(await sampler.runOnce()).toEqual([]);
    nowMs += 10_000;
    await sampler.runOnce();
    expect(samples.map((sample) => sample.atMs - samples[0]!.atMs)).toEqual([0, 30_000]);
    expect(samples[1]!.vms[0]!.cpuPercent).toBeNull();
  });
});
