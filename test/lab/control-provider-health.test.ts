// The provider health monitor through the runtime on the lab: both lab hosts Reachable for the
// lab's entry, and PoolNotActive on both for an entry whose hosts use the lab's defined-but-not-
// running pool (the shared pool is never stopped: other tests use it). Results reach the store
// (latest and history, as the dashboard reads them) and the target gauge.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Runtime } from '@/server/runtime';
import { loadLab, type Lab } from './harness/lab';
import { ControlLabRun } from './control-support';

let lab: Lab;
let run: ControlLabRun;
let runtime: Runtime;
let reachable: string;
let stopped: string;

beforeAll(async () => {
  lab = loadLab();
  run = new ControlLabRun(lab);
  reachable = run.entryName('up');
  stopped = run.entryName('stopped');
  runtime = await run.start({ entries: [{ suffix: 'up' }, { suffix: 'stopped', pool: lab.inactivePool.name }] });
});
afterAll(async () => {
  await run?.cleanUp();
});

async function gauge(): Promise<Record<string, number>> {
  const { values } = await runtime.services.metrics.providerTargetUp.get();
  return Object.fromEntries(values.map((value) => [`${value.labels.provider}/${value.labels.target}`, value.value]));
}

describe('the provider health monitor on the lab', () => {
  it('records Reachable for both lab hosts and PoolNotActive for an entry on the inactive pool', async () => {
    // The first round runs at start; wait until both entries have results.
    const summaries = await vi.waitFor(
      async () => {
        const list = await runtime.services.providers.list();
        expect(
          list.filter((summary) => summary.targets.length === 0),
          'the first health round',
        ).toEqual([]);
        return list;
      },
      { timeout: 60_000, interval: 250 },
    );
    const hostNames = lab.hosts.map((host) => host.name);
    const byName = new Map(summaries.map((summary) => [summary.name, summary]));
    expect([...byName.keys()]).toEqual([reachable, stopped]);

    const up = byName.get(reachable)!;
    expect(up.available).toBe(true);
    expect(up.targets.map((target) => [target.name, target.ready, target.reason])).toEqual(hostNames.map((host) => [host, true, 'Reachable']));
    for (const target of up.targets) expect(target.details).toMatchObject({ pool: lab.pool.name, poolState: 'running', user: lab.user });
    // Typed through the store and the API too.
    for (const target of up.targets) expect(target.pool).toMatchObject({ name: lab.pool.name, state: 'running' });

    const down = byName.get(stopped)!;
    expect(down.targets.map((target) => [target.name, target.ready, target.reason])).toEqual(hostNames.map((host) => [host, false, 'PoolNotActive']));
    for (const target of down.targets) {
      expect(target.message).toContain(JSON.stringify(lab.inactivePool.name));
      expect(target.details).toMatchObject({ pool: lab.inactivePool.name });
    }

    // History for the charts, and the gauge.
    for (const host of hostNames) {
      expect((await runtime.services.providers.history(reachable, { sinceMs: 0, target: host })).map((sample) => [sample.ready, sample.reason])).toEqual([
        [true, 'Reachable'],
      ]);
      expect((await runtime.services.providers.history(stopped, { sinceMs: 0, target: host })).map((sample) => [sample.ready, sample.reason])).toEqual([
        [false, 'PoolNotActive'],
      ]);
    }
    expect(await gauge()).toEqual(
      Object.fromEntries(
        hostNames.flatMap((host) => [
          [`${reachable}/${host}`, 1],
          [`${stopped}/${host}`, 0],
        ]),
      ),
    );
  });
});
