import { describe, expect, it } from 'vitest';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();

describe.each(storeEngines)('proxy events on %s', (engine) => {
  it('fold repeats into a count, keep the newest per Proxy, and prune by age', async () => {
    const { events } = await engines.open(engine);
    await events.record('u1', { type: 'Warning', reason: 'ReconcileError', message: 'transient: unreachable', atMs: 1_000 });
    await events.record('u1', { type: 'Warning', reason: 'ReconcileError', message: 'transient: unreachable', atMs: 2_000 });
    await events.record('u1', { type: 'Normal', reason: 'Created', message: 'instance created', atMs: 3_000 });
    const [newest, folded] = await events.list('u1');
    expect(newest).toMatchObject({ reason: 'Created', count: 1 });
    expect(folded).toMatchObject({ reason: 'ReconcileError', count: 2, firstAt: new Date(1_000).toISOString(), lastAt: new Date(2_000).toISOString() });

    for (let i = 0; i < 250; i++) await events.record('u2', { type: 'Normal', reason: 'Step', message: `step ${i}`, atMs: 10_000 + i });
    const kept = await events.list('u2', 1_000);
    expect(kept).toHaveLength(200);
    expect(kept[0]?.message).toBe('step 249');

    expect(await events.pruneBefore(2_500)).toBe(1);
    expect((await events.list('u1')).map((event) => event.reason)).toEqual(['Created']);
  }, 30_000);
});
