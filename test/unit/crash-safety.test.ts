// Crash safety: the runtime runs in a child process over a fake provider whose instances persist
// in a file. Each round restarts the child, checks that everything acknowledged before the last
// kill is there and converges, lets it work towards a new desired state, and SIGKILLs it at a
// random moment. After 20 kills a last start must converge and stop cleanly on SIGTERM. It runs on
// both store engines: SQLite in DATA_DIR, and PostgreSQL (where each start also wins the leader
// lock that the killed process's session held).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '@/server/store';
import type { Engine } from '@/server/store/sql';
import { bundleChild, startChild } from '@/test/fakes/bundle-child';
import { tempDir } from '@/test/fakes/control-plane';
import type { CrashOp, DesiredProxy, SnapshotEntry } from '@/test/fakes/crash-child';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const kills = 20;
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 2 ** 31);

function prng(start: number): () => number {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * The next desired state in two stages: first a few creates, a spec change (port or machine
 * type) and a delete; then, while those Creates run, a change to one new Proxy and the deletion
 * of another.
 */
function nextStages(current: DesiredProxy[], random: () => number, round: number): DesiredProxy[][] {
  const first = nextDesired(current, random, round);
  const fresh = first.filter((proxy) => proxy.name.startsWith(`p${round}-`));
  const second = first
    .map((proxy) => (proxy === fresh[0] ? { ...proxy, port: proxy.port + 1 } : { ...proxy }))
    .filter((proxy) => fresh.length < 2 || proxy.name !== fresh[1]?.name);
  return [first, second];
}

function nextDesired(current: DesiredProxy[], random: () => number, round: number): DesiredProxy[] {
  const next = current.map((proxy) => ({ ...proxy }));
  if (next.length > 2 && random() < 0.7) next.splice(Math.floor(random() * next.length), 1);
  const changed = next[Math.floor(random() * next.length)];
  if (changed) {
    if (random() < 0.5) changed.port = 3000 + Math.floor(random() * 1000);
    else changed.machineType = changed.machineType === 'small' ? 'large' : 'small';
  }
  const creates = next.length < 4 ? 2 : 1;
  for (let i = 0; i < creates; i++) next.push({ name: `p${round}-${i}`, port: 3128, machineType: 'small' });
  return next;
}

type State = Map<string, { port: number; machineType: string }>;

const stateOf = (snapshot: SnapshotEntry[]): State => new Map(snapshot.map((entry) => [entry.name, { port: entry.port, machineType: entry.machineType }]));

function applyOp(state: State, op: CrashOp): State {
  const next = new Map(state);
  if (op.kind === 'delete') next.delete(op.name);
  else next.set(op.proxy.name, { port: op.proxy.port, machineType: op.proxy.machineType });
  return next;
}

const sorted = (state: State) => [...state.entries()].sort(([a], [b]) => a.localeCompare(b));

const dir = tempDir('crash-safety-');
afterAll(() => dir.remove());
const engines = storeEnginesForFile();
let script: Promise<string> | undefined;

describe.each(storeEngines)('crash safety on %s', (engine: Engine) => {
  it(`loses nothing and converges after ${kills} SIGKILLs at random points (seed ${seed})`, { timeout: 120_000 }, async () => {
    script ??= bundleChild('test/fakes/crash-child.ts', dir.path);
    const random = prng(seed);
    const where = await engines.location(engine);
    const env = {
      DATA_DIR: where.dataDir,
      FAKE_STATE: join(where.dataDir, 'fake-instances.json'),
      ...(where.databaseUrl ? { DATABASE_URL: where.databaseUrl, LEADER_HEARTBEAT: '200ms', LEADER_LEASE: '2s' } : {}),
    };
    let desired: DesiredProxy[] = [];
    /** what must exist after the restart: the converged state plus every acknowledged change */
    let expected: State = new Map();
    /** a change that was issued but not acknowledged before the kill: either outcome is fine */
    let inFlight: CrashOp | undefined;
    const killedDuring = new Set<string>();

    for (let round = 0; round <= kills; round++) {
      const desiredFile = join(dir.path, `desired-${round}.json`);
      const stages = nextStages(desired, random, round);
      desired = stages.at(-1) as DesiredProxy[];
      writeFileSync(desiredFile, JSON.stringify(stages));
      const child = startChild(await script, { ...env, ...(round < kills ? { DESIRED_FILE: desiredFile } : {}) });

      const converged = stateOf((await child.waitFor('converged', 20_000)) as SnapshotEntry[]);
      const allowed = [expected, ...(inFlight ? [applyOp(expected, inFlight)] : [])].map(sorted);
      expect(allowed, `round ${round}: the restarted store holds every acknowledged change`).toContainEqual(sorted(converged));

      if (round === kills) {
        child.process.kill('SIGTERM');
        expect(await child.exited).toBe(0);
        expect(child.lines.map((line) => line.tag)).toContain('stopped');
        expected = converged;
        break;
      }
      // Kill somewhere in the stretch where changes are committed and reconciled.
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 250)));
      child.process.kill('SIGKILL');
      await child.exited;

      let state = converged;
      inFlight = undefined;
      for (const line of child.lines) {
        if (line.tag === 'applying') inFlight = line.value as CrashOp;
        if (line.tag === 'applied') {
          state = applyOp(state, line.value as CrashOp);
          inFlight = undefined;
        }
      }
      expected = state;
      killedDuring.add(child.lines.at(-1)?.tag ?? 'start');
    }

    // Independently of the child: the store and the fake's instances agree one to one.
    const store = await openStore(where);
    const records = await store.sql.all<{ uid: string; name: string; status: string; deletion_requested_at: string | null }>(
      'SELECT uid, name, status, deletion_requested_at FROM proxies',
    );
    await store.close();
    const instances = JSON.parse(readFileSync(env.FAKE_STATE, 'utf8')) as Array<{ providerID: string; uid: string }>;
    expect(records.map((record) => record.name).sort()).toEqual([...expected.keys()].sort());
    expect(records.every((record) => record.deletion_requested_at === null)).toBe(true);
    expect(instances.map((instance) => instance.uid).sort()).toEqual(records.map((record) => record.uid).sort());
    for (const record of records) {
      const status = JSON.parse(record.status) as { providerID?: string };
      expect(instances.find((instance) => instance.providerID === status.providerID)?.uid).toBe(record.uid);
    }
    // The kills landed in more than one place (before, during and after the changes).
    expect(killedDuring.size).toBeGreaterThan(1);
  });
});
