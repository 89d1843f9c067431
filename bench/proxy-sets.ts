// `npx tsx bench/proxy-sets.ts` (issue 23's `bench:sets`): one ProxySet of 500 members on the fake
// provider with 20 hosts, over the real store, Proxy service and reconciler. Measures one
// controller pass with nothing to do (time, statements read and written) against the reference
// of one read of every Proxy record in the same run (a pass must cost about that: it reads the
// sets, the Proxies and the health once), then a full rollout of the 500 (passes, time, writes).
// The last line is
//   sets-bench members=500 hosts=20 idle_pass_ms=<x> idle_reads=<n> idle_writes=<n> list_ms=<x> ratio=<x> rollout_passes=<n> rollout_ms=<x> rollout_writes=<n>
import { memberTemplateHash, templateHash } from '@/server/control/proxy-set-members';
import { setHarness, setInput, setTemplate } from '@/test/fakes/proxy-set-fixture';

const MEMBERS = 500;
const HOSTS = 20;
const IDLE_ROUNDS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const h = await setHarness({ hosts: Object.fromEntries(Array.from({ length: HOSTS }, (_, i) => [`hv-${String(i + 1).padStart(2, '0')}`, 8 + (i % 4)])) });
  const counts = { reads: 0, writes: 0 };
  // Every statement, inside transactions too (they run on the executor handed to the work).
  type Executor = Record<'all' | 'get' | 'run' | 'transaction', (...args: any[]) => Promise<unknown>>;
  const patched = new WeakSet<Executor>();
  const counting = (db: Executor): Executor => {
    if (patched.has(db)) return db;
    patched.add(db);
    const original = { all: db.all.bind(db), get: db.get.bind(db), run: db.run.bind(db), transaction: db.transaction.bind(db) };
    db.all = (...args) => ((counts.reads += 1), original.all(...args));
    db.get = (...args) => ((counts.reads += 1), original.get(...args));
    db.run = (...args) => ((counts.writes += 1), original.run(...args));
    db.transaction = (work: (tx: Executor) => Promise<unknown>) => original.transaction((tx: Executor) => work(counting(tx)));
    return db;
  };
  counting(h.store.sql as unknown as Executor);
  try {
    await h.sets.create(setInput({ replicas: MEMBERS, maxSurge: 50 }));
    const upStarted = performance.now();
    while ((await h.members('crawl')).length < MEMBERS) await h.pass();
    const upMs = performance.now() - upStarted;
    for (const member of await h.members('crawl')) await h.markReady(member.name);
    await h.pass();

    const idle: number[] = [];
    const lists: number[] = [];
    let idleReads = 0;
    let idleWrites = 0;
    for (let round = 0; round < IDLE_ROUNDS; round++) {
      counts.reads = 0;
      counts.writes = 0;
      let started = performance.now();
      await h.controller.pass();
      idle.push(performance.now() - started);
      idleReads = counts.reads;
      idleWrites = counts.writes;
      started = performance.now();
      await h.store.proxies.list();
      lists.push(performance.now() - started);
    }

    await h.sets.update('crawl', { template: { ...setTemplate, port: 8080 }, replicas: MEMBERS, maxSurge: 50 });
    const newHash = templateHash('crawl', (await h.store.proxySets.get('crawl'))!.spec.template);
    counts.writes = 0;
    const rollStarted = performance.now();
    let passes = 0;
    for (;;) {
      await h.pass();
      passes += 1;
      const members = (await h.members('crawl')).filter((member) => !member.deletionRequestedAt);
      const fresh = members.filter((member) => memberTemplateHash(member.spec) === newHash);
      for (const member of fresh) if (!member.probe) await h.markReady(member.name);
      if (fresh.length === MEMBERS && members.length === MEMBERS) break;
      if (passes > 1_000) throw new Error('the rollout did not finish in 1000 passes');
    }
    const rollMs = performance.now() - rollStarted;
    const idleMs = median(idle);
    const listMs = median(lists);
    console.log(`scale 0 -> ${MEMBERS}: ${upMs.toFixed(0)} ms (controller and reconciler)`);
    console.log(`idle pass: ${idleMs.toFixed(1)} ms, ${idleReads} statements read, ${idleWrites} written; one read of every Proxy: ${listMs.toFixed(1)} ms`);
    console.log(
      `rollout of ${MEMBERS} (maxSurge 50): ${passes} passes, ${rollMs.toFixed(0)} ms, ${counts.writes} statements written (Proxy service and reconciler included)`,
    );
    console.log(
      `sets-bench members=${MEMBERS} hosts=${HOSTS} idle_pass_ms=${idleMs.toFixed(1)} idle_reads=${idleReads} idle_writes=${idleWrites} list_ms=${listMs.toFixed(1)} ratio=${(idleMs / listMs).toFixed(2)} rollout_passes=${passes} rollout_ms=${rollMs.toFixed(0)} rollout_writes=${counts.writes}`,
    );
  } finally {
    await h.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
