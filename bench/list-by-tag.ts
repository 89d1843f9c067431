// `npm run bench:list`: ListByTag over 20 running marked domains on lab1 (real libvirtd over real
// sshd; lab2, a hypervisor of its own, is swept as well and lists none of them), against the sweep
// it replaced, measured in the same run over the same kind of pooled connection. RPCs are counted
// from the `libvirt call` lines (one per RPC). The reference reads, per domain, the mark, the state
// and (running) the guest agent's and ARP's addresses, 8 domains at a time. The last line is
//   list-bench domains=<n> before_rpcs=<n> after_rpcs=<n> before_ms=<x> after_ms=<x> speedup=<x>
import { DomainInterfaceAddressesSource, LibvirtError, type Domain } from '@/server/libvirt';
import { managedTag } from '@/server/providers/contract';
import { readMark, stateClassOf } from '@/server/providers/kvm2/domain';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import type { LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { createLogger } from '@/server/telemetry/logger';
import { loadLab } from '@/test/lab/harness/lab';
import { Kvm2LabRun, type LogLine } from '@/test/lab/kvm2-provider-support';
import { startIdleDomain } from '@/test/lab/rpc-domain-support';

const DOMAINS = 20;
const ROUNDS = 5;
const REFERENCE_CONCURRENCY = 8;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** The previous sweep of one host, step for step: list, then per domain mark, state and addresses. */
async function referenceSweep(api: LibvirtAPI): Promise<number> {
  const domains = await api.connectListAllDomains({ flags: 0 });
  let managed = 0;
  let next = 0;
  const inspect = async (dom: Domain) => {
    try {
      const mark = await readMark(api, dom);
      if (!mark?.managed) return;
      const { state } = await api.domainGetState({ dom });
      if (stateClassOf[state] === 'active') {
        for (const source of [DomainInterfaceAddressesSource.Agent, DomainInterfaceAddressesSource.Arp]) {
          const found = await api.domainInterfaceAddresses({ dom, source }).catch((err: unknown) => {
            if (err instanceof LibvirtError) return [];
            throw err;
          });
          if (found.length > 0) break;
        }
      }
      managed += 1;
    } catch (err) {
      if (!(err instanceof LibvirtError)) throw err;
    }
  };
  const worker = async () => {
    while (next < domains.length) await inspect(domains[next++]!);
  };
  await Promise.all(Array.from({ length: REFERENCE_CONCURRENCY }, worker));
  return managed;
}

async function main(): Promise<void> {
  const lab = loadLab();
  const run = new Kvm2LabRun(lab);
  const provider = run.provider();
  const lines: LogLine[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } });
  const backend = createHostBackend({ providerName: run.entryName, settings: withDefaults(run.entry()), logger });
  const rpcs = () => run.logs.filter((line) => line.msg === 'libvirt call').length + lines.filter((line) => line.msg === 'libvirt call').length;
  const measure = async (work: () => Promise<unknown>) => {
    const before = rpcs();
    const started = performance.now();
    await work();
    return { ms: performance.now() - started, rpcs: rpcs() - before };
  };

  try {
    const names = Array.from({ length: DOMAINS }, (_, index) => run.domainName(`list${index}`));
    for (const [index, name] of names.entries()) await startIdleDomain({ name, lab, uid: `uid-list${index}` });
    const apis = await Promise.all(lab.hosts.map((host) => backend.pooled(host.name)));
    await provider.listByTag(managedTag); // dial both hosts' pooled connections before timing
    const before = [];
    const after = [];
    let listed = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      before.push(await measure(() => Promise.all(apis.map((api) => referenceSweep(api)))));
      after.push(
        await measure(async () => {
          listed = (await provider.listByTag(managedTag)).filter((instance) => names.includes(instance.name)).length;
        }),
      );
    }
    const beforeMs = median(before.map((item) => item.ms));
    const afterMs = median(after.map((item) => item.ms));
    const beforeRpcs = before[0]!.rpcs;
    const afterRpcs = after[0]!.rpcs;
    const otherDomains = (await apis[0]!.connectListAllDomains({ flags: 0 })).length - DOMAINS;
    console.log(`lab1's libvirtd: ${DOMAINS} running marked domains of this run (+${otherDomains} others), swept through ${lab.hosts.length} hosts`);
    console.log(`before (per-domain mark, state, agent and ARP addresses, 8 at a time): ${beforeRpcs} RPCs, ${beforeMs.toFixed(1)} ms median of ${ROUNDS}`);
    console.log(
      `after (listing + one bulk state call + pipelined marks): ${afterRpcs} RPCs, ${afterMs.toFixed(1)} ms median of ${ROUNDS}; ${listed} entries listed`,
    );
    console.log(
      `list-bench domains=${DOMAINS} before_rpcs=${beforeRpcs} after_rpcs=${afterRpcs} before_ms=${beforeMs.toFixed(1)} after_ms=${afterMs.toFixed(1)} speedup=${(beforeMs / afterMs).toFixed(2)}`,
    );
  } finally {
    await backend.closeAll();
    await run.cleanUp();
  }
}

await main();
