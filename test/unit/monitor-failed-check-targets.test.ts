// A kvm2 check that throws, or overruns the round and ignores the abort, is still recorded the way
// the spec describes every target: one per configured host, each carrying `user` and `pool`, with
// a reason from the spec's table (Timeout for the overrun, APIError for the throw), from the very
// first round (before any earlier result could name the targets).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkReason } from '@/server/providers/kvm2/check';
import type { Store } from '@/server/store';
import { monitorOf } from '@/test/support/monitor';
import { makeHarness, TestMirror } from './kvm2-fixture';
import { storePerTest } from '../support/temp-store';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

let store: Store;
storePerTest((opened) => (store = opened));
afterEach(() => {
  vi.useRealTimers();
});

const tableReasons = Object.keys(checkReason);

describe('a kvm2 check that fails as a whole', () => {
  it.each([
    ['throws', 'APIError', () => Promise.reject(new Error('check broke'))],
    ['overruns the round and ignores the abort', 'Timeout', () => new Promise<never>(() => {})],
  ] as const)('%s: every host recorded with user, pool and %s', async (_what, reason, check) => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const kvm2 = makeHarness({ mirror, hosts: ['h1', 'h2'] });
    kvm2.provider.check = check;
    const monitor = await monitorOf({ provider: kvm2.provider, store, graceMs: 1_000 });
    const round = monitor.runOnce();
    await vi.advanceTimersByTimeAsync(16_000);
    const [result] = await round;

    const expected = kvm2.settings.hosts.map((host) => [host.name, false, reason, { user: host.user, pool: host.pool }]);
    expect(result?.targets.map((target) => [target.name, target.ready, target.reason, target.details])).toEqual(expected);
    const stored = (await store.health.latest(kvm2.provider.name))[0]?.targets ?? [];
    expect(stored.map((target) => target.reason).every((word) => tableReasons.includes(word))).toBe(true);
    expect(stored.map((target) => target.details)).toEqual(expected.map((row) => row[3]));
    // The pool's name, typed, is known without checking too.
    expect(result?.targets.map((target) => target.pool)).toEqual(kvm2.settings.hosts.map((host) => ({ name: host.pool })));
    expect(stored.map((target) => target.pool)).toEqual(kvm2.settings.hosts.map((host) => ({ name: host.pool })));
  });
});
