// `npm run bench:sampling`: what one stats sampling round costs (the whole round: the provider's
// RPCs, rates, the store's writes) for 1, 20 and 100 Proxy VMs on one host. 1 and 20 are idle
// domains on the lab's lab1 (real libvirtd over real sshd, RPCs counted on the wire); 100 runs on
// the in-memory fake hypervisor (labelled so; no XDR decoding there, so its CPU is ours alone).
// The reference in the same run reads the same stats one domain at a time (one
// CONNECT_GET_ALL_DOMAIN_STATS per domain, as a per-VM poller would). The last line is
//   sampling-bench lab_rpcs_1=<n> lab_rpcs_20=<n> fake_rpcs_100=<n> rpc_growth_1_to_20=<x> rpc_growth_1_to_100=<x> ...
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { proxySpecSchema } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import { Sampler } from '@/server/control/sampler';
import { DomainState, type LibvirtClient } from '@/server/libvirt';
import type { Provider } from '@/server/providers/contract';
import { sampledGroups } from '@/server/providers/kvm2/host-stats';
import type { HostBackend, LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { openStore, type Store } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { providerSetOf } from '@/test/fakes/control-plane';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';
import { loadLab, removeDomain } from '@/test/lab/harness/lab';
import { Kvm2LabRun } from '@/test/lab/kvm2-provider-support';
import { startIdleDomain } from '@/test/lab/rpc-domain-support';
import { openOverSsh } from '@/test/lab/rpc-lab-support';

const ROUNDS = 10;
const logger = createLogger({ level: 'silent' });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const proxyName = (index: number) => `bench-sampling-${index}`;

interface Measured {
  rpcs: number;
  referenceRpcs: number;
  cpuMs: number;
  wallMs: number;
}

interface Setup {
  provider: Provider;
  host: string;
  api: LibvirtAPI;
  rpcs: () => number;
}

/** A store whose Proxies own `count` domains, so every VM's row is written as in production. */
async function storeWithProxies(options: { dir: string; provider: string; count: number }): Promise<Store> {
  const { dir, provider, count } = options;
  const store = await openStore({ dataDir: dir, logger });
  const spec = proxySpecSchema.parse({ mode: 'Managed', provider, placement: { zone: 'lab1', machineType: 'small', image: 'lab' } });
  for (let index = 0; index < count; index += 1)
    await store.proxies.insert({ uid: `uid-${index}`, name: proxyName(index), spec, now: new Date().toISOString() });
  return store;
}

async function measure(setup: Setup, count: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sampling-'));
  const store = await storeWithProxies({ dir, provider: setup.provider.name, count });
  try {
    const sampler = new Sampler({
      store,
      clock: { now: () => Date.now(), setTimeout: () => undefined, clearTimeout: () => {} },
      providers: await providerSetOf([setup.provider]),
      logger,
      intervalMs: 10_000,
    });
    await sampler.runOnce(); // the baseline round (and the pooled connection's dial)
    const rpcs: number[] = [];
    const cpu: number[] = [];
    const wall: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = setup.rpcs();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const [sample] = await sampler.runOnce();
      wall.push(performance.now() - started);
      const used = process.cpuUsage(cpuBefore);
      cpu.push((used.user + used.system) / 1000);
      rpcs.push(setup.rpcs() - before);
      if (sample?.vms.length !== count) throw new Error(`a round sampled ${sample?.vms.length ?? 0} Proxy VMs, expected ${count}`);
    }
    // The reference: the same groups, one call per domain, plus the node calls.
    const before = setup.rpcs();
    const domains = await setup.api.connectListAllDomains({ flags: 0 });
    await Promise.all([
      ...domains.map((dom) => setup.api.connectGetAllDomainStats({ stats: sampledGroups, doms: [dom] })),
      setup.api.nodeGetInfo(),
      setup.api.nodeGetCpuStats(),
      setup.api.nodeGetMemoryStats(),
    ]);
    return { rpcs: median(rpcs), referenceRpcs: setup.rpcs() - before, cpuMs: median(cpu), wallMs: median(wall) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** lab1 over real SSH, every wire RPC counted on the client. */
async function labSetup(): Promise<{ setup: Setup; client: LibvirtClient }> {
  const lab = loadLab();
  const client = await openOverSsh(lab);
  let count = 0;
  const call = client.rpc.call.bind(client.rpc);
  client.rpc.call = ((...args: Parameters<typeof call>) => {
    count += 1;
    return call(...args);
  }) as typeof client.rpc.call;
  const backend: HostBackend = { pooled: async () => client, fresh: async () => ({ api: client, close: async () => {} }), closeAll: async () => {} };
  const entry = new Kvm2LabRun(lab).entry();
  const provider = createKvm2Provider({ entry: { ...entry, name: 'bench', kvm2: { ...entry.kvm2, hosts: entry.kvm2.hosts.slice(0, 1) } }, backend, logger });
  return { setup: { provider, host: 'lab1', api: client, rpcs: () => count }, client };
}

async function fakeSetup(count: number): Promise<Setup> {
  const hypervisor = new FakeHypervisor();
  for (let index = 0; index < count; index += 1) {
    const nic = { name: 'vnet0', rxBytes: 1_000n, txBytes: 1_000n, rxPackets: 0n, rxErrors: 0n, rxDrops: 0n, txPackets: 0n, txErrors: 0n, txDrops: 0n };
    hypervisor.addDomain({
      name: instanceName(proxyName(index)),
      state: DomainState.Running,
      stats: {
        cpu: { timeNs: 1_000_000n },
        balloon: { currentKiB: 262_144n, rssKiB: 131_072n },
        interfaces: [nic],
        blocks: [{ name: 'vda', readBytes: 0n, writeBytes: 0n, readRequests: 0n, writeRequests: 0n }],
      },
    });
  }
  const backend = new FakeHostBackend({ lab1: hypervisor });
  const settings = kvm2Settings({ hosts: [{ name: 'lab1', address: 'lab1.lan', user: 'bench', bridge: 'br0' }] });
  const provider = createKvm2Provider({ settings, backend, logger });
  // The reference reads over a connection of its own to the same hypervisor (the call log is the hypervisor's).
  const api = await new FakeHostBackend({ lab1: hypervisor }).pooled('lab1');
  return { provider, host: 'lab1', api, rpcs: () => hypervisor.calls.length };
}

const row = (label: string, count: number, result: Measured) =>
  `${label.padEnd(26)} ${String(count).padStart(4)} VMs: ${String(result.rpcs).padStart(3)} RPCs/round (per-domain reference ${String(result.referenceRpcs).padStart(3)}), server CPU ${result.cpuMs.toFixed(2)} ms/round, wall ${result.wallMs.toFixed(1)} ms`;

async function main(): Promise<void> {
  const lab = loadLab();
  const started: string[] = [];
  const { setup, client } = await labSetup();
  const results: Record<string, Measured> = {};
  try {
    for (const count of [1, 20]) {
      for (let index = started.length; index < count; index += 1) {
        const name = instanceName(proxyName(index));
        await startIdleDomain({ name, lab });
        started.push(name);
      }
      results[`lab${count}`] = await measure(setup, count);
      console.log(row('lab1 (real libvirtd)', count, results[`lab${count}`]!));
    }
  } finally {
    await client.close().catch(() => undefined);
    for (const name of started) await removeDomain(name).catch(() => undefined);
  }
  for (const count of [1, 20, 100]) {
    const fake = await fakeSetup(count);
    results[`fake${count}`] = await measure(fake, count);
    console.log(row('FAKE hypervisor (in-memory)', count, results[`fake${count}`]!));
  }
  const lab1 = results.lab1!;
  const lab20 = results.lab20!;
  const fake1 = results.fake1!;
  const fake100 = results.fake100!;
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  console.log(
    `RPCs per round, 20 VMs over 1 (lab): ${ratio(lab20.rpcs, lab1.rpcs)}x; 100 over 1 (fake): ${ratio(fake100.rpcs, fake1.rpcs)}x. Per-domain reference at 20 (lab): ${ratio(lab20.referenceRpcs, lab20.rpcs)}x ours`,
  );
  console.log(`server CPU per round, 20 VMs over 1 (lab): ${ratio(lab20.cpuMs, lab1.cpuMs)}x; 100 over 1 (fake): ${ratio(fake100.cpuMs, fake1.cpuMs)}x`);
  console.log(
    `sampling-bench lab_rpcs_1=${lab1.rpcs} lab_rpcs_20=${lab20.rpcs} fake_rpcs_100=${fake100.rpcs} rpc_growth_1_to_20=${ratio(lab20.rpcs, lab1.rpcs)} rpc_growth_1_to_100_fake=${ratio(fake100.rpcs, fake1.rpcs)} reference_rpcs_20=${lab20.referenceRpcs} lab_cpu_ms_1=${lab1.cpuMs.toFixed(2)} lab_cpu_ms_20=${lab20.cpuMs.toFixed(2)} fake_cpu_ms_100=${fake100.cpuMs.toFixed(2)}`,
  );
  if (lab20.rpcs !== lab1.rpcs || fake100.rpcs !== fake1.rpcs) throw new Error('RPCs per round grew with the number of domains');
}

await main();
