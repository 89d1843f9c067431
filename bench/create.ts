// `npm run bench:create`: the kvm2 provider's operations on the lab (real libvirtd over real sshd,
// virtType qemu): RPC count and wall time of Create with a cached image, Get, Delete, ListByTag
// over 20 domains, and one health-check round over both hosts. RPCs are counted from the
// `libvirt call` lines the provider writes, one per RPC. As a reference measured in the same run,
// each time is also given in sequential RPC round trips (ConnectGetLibVersion on its own
// connection through the same sshd). The last line is
//   create-bench create_rpcs=<n> create_ms=<x> get_rpcs=<n> get_ms=<x> delete_ms=<x> list20_ms=<x> check_ms=<x>
// Create's time is also broken down per RPC, with the slowest three named and the time outside any
// RPC (ours).
// Targets: Create with a cached image at most 25 RPCs, Get at most 5.
// The domains are created on lab1; ListByTag sweeps both hosts (two hypervisors) and lists each once.
import { managedTag } from '@/server/providers/contract';
import { loadLab } from '@/test/lab/harness/lab';
import { Kvm2LabRun } from '@/test/lab/kvm2-provider-support';
import { openOverSsh } from '@/test/lab/rpc-lab-support';

const DOMAINS = 20;
const SINGLE_ROUNDS = 5;
const GETS_PER_ROUND = 4;
const LIST_ROUNDS = 3;
const CHECK_ROUNDS = 3;
const RTT_CALLS = 200;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const fixed = (value: number) => value.toFixed(1);

async function referenceRttMs(run: Kvm2LabRun): Promise<number> {
  const client = await openOverSsh(run.lab);
  try {
    for (let i = 0; i < 20; i += 1) await client.connectGetLibVersion();
    const started = performance.now();
    for (let i = 0; i < RTT_CALLS; i += 1) await client.connectGetLibVersion();
    return (performance.now() - started) / RTT_CALLS;
  } finally {
    await client.close();
  }
}

/**
 * Where a Create's time goes: per RPC (summed when called more than once in one Create), the median
 * over the Creates, the slowest three named; and what is left of the wall time outside any RPC
 * (our own work and waits: the seed ISO, locks, the event loop). The calls are sequential, so the
 * parts add up to the wall time.
 */
function printBreakdown(creates: Array<{ ms: number; calls: Array<{ rpc: string; ms: number }> }>): void {
  const perRpc = new Map<string, number[]>();
  creates.forEach((create, index) => {
    for (const call of create.calls) {
      const list = perRpc.get(call.rpc) ?? [];
      list[index] = (list[index] ?? 0) + call.ms;
      perRpc.set(call.rpc, list);
    }
  });
  const rows = [...perRpc].map(([rpc, list]) => ({
    rpc,
    ms: median(creates.map((_, index) => list[index] ?? 0)),
    calls: creates[0]?.calls.filter((call) => call.rpc === rpc).length ?? 0,
  }));
  rows.sort((a, b) => b.ms - a.ms);
  const outside = median(creates.map((create) => create.ms - create.calls.reduce((sum, call) => sum + call.ms, 0)));
  console.log(`Create's time by RPC (median of ${creates.length}; x2 = called twice):`);
  for (const row of rows) console.log(`  ${row.rpc.padEnd(36)} ${fixed(row.ms).padStart(7)} ms${row.calls > 1 ? ` x${row.calls}` : ''}`);
  console.log(`  ${'(outside any RPC: ours)'.padEnd(36)} ${fixed(outside).padStart(7)} ms`);
  console.log(
    `  slowest three: ${rows
      .slice(0, 3)
      .map((row) => `${row.rpc} ${fixed(row.ms)} ms`)
      .join(', ')}`,
  );
}

async function main(): Promise<void> {
  const lab = loadLab();
  const run = new Kvm2LabRun(lab);
  const provider = run.provider();
  const rpcLines = () => run.logs.filter((line) => line.msg === 'libvirt call');
  /** Wall time and RPCs (name and duration, in call order) of one operation. */
  const measure = async (work: () => Promise<unknown>) => {
    const before = rpcLines().length;
    const started = performance.now();
    await work();
    const ms = performance.now() - started;
    const calls = rpcLines()
      .slice(before)
      .map((line) => ({ rpc: String(line.rpc), ms: Number(line.duration) }));
    return { ms, rpcs: calls.length, calls };
  };
  const request = (name: string) => ({
    name,
    uid: `uid-${name}`,
    placement: { zone: 'lab1', machineType: 'small', image: 'lab' },
    cloudInit: '#cloud-config\n',
    port: 3128,
  });
  const names = Array.from({ length: DOMAINS }, (_, index) => run.domainName(`bench${index}`));
  const ids = names.map((name) => `hosts/lab1/domains/${name}`);

  try {
    const rttMs = await referenceRttMs(run);
    const first = await measure(() => provider.create(request(names[0]!)));
    console.log(`first Create (image download included): ${fixed(first.ms)} ms, ${first.rpcs} RPCs`);

    // Create, Get and Delete are timed with one or two guests running: every running TCG guest
    // takes CPU from a 2-core machine, which would otherwise be what the numbers measure.
    const creates = [];
    const gets = [];
    const deletes = [];
    for (let round = 1; round <= SINGLE_ROUNDS; round += 1) {
      creates.push(await measure(() => provider.create(request(names[round]!))));
      // The lab image boots no OS and libvirt 9.0's ARP source errors on an empty neighbour
      // table, so Get ends in ErrTransient ("every address source failed") after its RPCs.
      for (let get = 0; get < GETS_PER_ROUND; get += 1) gets.push(await measure(() => provider.get(ids[round]!).catch(() => undefined)));
      deletes.push(await measure(() => provider.delete(ids[round]!)));
    }
    const createMs = median(creates.map((item) => item.ms));
    const createRpcs = Math.max(...creates.map((item) => item.rpcs));
    const getMs = median(gets.map((item) => item.ms));
    const getRpcs = Math.max(...gets.map((item) => item.rpcs));
    const deleteMs = median(deletes.map((item) => item.ms));
    const deleteRpcs = Math.max(...deletes.map((item) => item.rpcs));

    const checks = [];
    for (let round = 0; round < CHECK_ROUNDS; round += 1) checks.push(await measure(() => provider.check()));
    const checkMs = median(checks.map((item) => item.ms));

    for (const name of names.slice(1)) await provider.create(request(name));
    const lists = [];
    let listed = 0;
    for (let round = 0; round < LIST_ROUNDS; round += 1) {
      lists.push(
        await measure(async () => {
          listed = (await provider.listByTag(managedTag)).filter((instance) => names.includes(instance.name)).length;
        }),
      );
    }
    const listMs = median(lists.map((item) => item.ms));
    for (const id of ids) await provider.delete(id);

    console.log(`reference: one RPC round trip through sshd ${rttMs.toFixed(3)} ms`);
    console.log(
      `Create (cached image): ${fixed(createMs)} ms median of ${creates.length}, ${createRpcs} RPCs (target <= 25), ${fixed(createMs / rttMs)} round trips`,
    );
    printBreakdown(creates);
    console.log(`Get: ${fixed(getMs)} ms median of ${gets.length}, ${getRpcs} RPCs (target <= 5), ${fixed(getMs / rttMs)} round trips`);
    console.log(`Delete: ${fixed(deleteMs)} ms median of ${deletes.length}, ${deleteRpcs} RPCs (DomainDestroy of a running guest dominates)`);
    console.log(`health check round (2 hosts, fresh connections): ${fixed(checkMs)} ms median of ${CHECK_ROUNDS}, ${fixed(checkMs / rttMs)} round trips`);
    console.log(
      `ListByTag: ${fixed(listMs)} ms median of ${LIST_ROUNDS}, ${lists[0]?.rpcs} RPCs; ${listed} entries for our ${DOMAINS} running domains (swept on both hosts, each listed once)`,
    );
    console.log(
      `create-bench create_rpcs=${createRpcs} create_ms=${fixed(createMs)} get_rpcs=${getRpcs} get_ms=${fixed(getMs)} delete_ms=${fixed(deleteMs)} list20_ms=${fixed(listMs)} check_ms=${fixed(checkMs)}`,
    );
  } finally {
    await run.cleanUp();
  }
}

await main();
