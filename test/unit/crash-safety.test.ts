// Crash safety: the runtime runs in a child process over a fake provider whose instances persist
// in a file. Each round restarts the child, checks that everything acknowledged before the last
// kill is there and converges, lets it work towards a new desired state, and SIGKILLs it at a
// random moment. After 20 kills a last start must converge and stop cleanly on SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseFileName } from '@/server/store/database';
import { tempDir } from '@/test/fakes/control-plane';
import type { CrashOp, DesiredProxy, SnapshotEntry } from '@/test/fakes/crash-child';

const root = join(import.meta.dirname, '..', '..');
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

interface Child {
  process: ChildProcess;
  lines: Array<{ tag: string; value: unknown }>;
  waitFor: (tag: string, timeoutMs: number) => Promise<unknown>;
  exited: Promise<number | null>;
}

// The child is bundled once (esbuild, which tsx brings along) next to a node_modules link: a
// start then costs about a second instead of the three that tsx's per-file loading takes here.
async function bundleChild(outDir: string): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = join(outDir, 'crash-child.mjs');
  await build({ entryPoints: [join(root, 'test/fakes/crash-child.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', alias: { '@': root }, outfile, logLevel: 'warning' });
  symlinkSync(join(root, 'node_modules'), join(outDir, 'node_modules'));
  return outfile;
}

function startChild(script: string, env: Record<string, string>): Child {
  const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Child['lines'] = [];
  const waiters: Array<() => void> = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const space = line.indexOf(' ');
    const tag = space < 0 ? line : line.slice(0, space);
    lines.push({ tag, value: space < 0 ? undefined : JSON.parse(line.slice(space + 1)) });
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = (tag: string, timeoutMs: number) =>
    new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${tag}" within ${timeoutMs} ms; lines: ${JSON.stringify(lines)}; stderr: ${stderr.slice(-2000)}`)), timeoutMs);
      const check = () => {
        const failure = lines.find((line) => line.tag === 'stuck' || line.tag === 'error');
        if (failure) return reject(new Error(`child ${failure.tag}: ${JSON.stringify(failure.value)}`));
        const found = lines.find((line) => line.tag === tag);
        if (found) {
          clearTimeout(timer);
          return resolve(found.value);
        }
        waiters.push(check);
      };
      check();
      void exited.then(() => setTimeout(check, 0));
    });
  return { process: child, lines, waitFor, exited };
}

/**
 * The next desired state in two stages: first a few creates, a spec change (port or machine
 * type) and a delete; then, while those Creates run, a change to one new Proxy and the deletion
 * of another.
 */
function nextStages(current: DesiredProxy[], random: () => number, round: number): DesiredProxy[][] {
  const first = nextDesired(current, random, round);
  const fresh = first.filter((proxy) => proxy.name.startsWith(`p${round}-`));
  const second = first.map((proxy) => (proxy === fresh[0] ? { ...proxy, port: proxy.port + 1 } : { ...proxy })).filter((proxy) => fresh.length < 2 || proxy.name !== fresh[1]?.name);
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

describe('crash safety', () => {
  it(`loses nothing and converges after ${kills} SIGKILLs at random points (seed ${seed})`, { timeout: 120_000 }, async () => {
    const script = await bundleChild(dir.path);
    const random = prng(seed);
    const env = { DATA_DIR: join(dir.path, 'data'), FAKE_STATE: join(dir.path, 'fake-instances.json') };
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
      const child = startChild(script, { ...env, ...(round < kills ? { DESIRED_FILE: desiredFile } : {}) });

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
    const db = new BetterSqlite3(join(env.DATA_DIR, databaseFileName), { readonly: true });
    const records = db.prepare('SELECT uid, name, status, deletion_requested_at FROM proxies').all() as Array<{ uid: string; name: string; status: string; deletion_requested_at: string | null }>;
    db.close();
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
