import { describe, expect, it, vi } from 'vitest';
import { rendezvousChoose, rendezvousRank } from '@/server/gateway/rendezvous';

const sessions = Array.from({ length: 10_000 }, (_, i) => `session-${i}`);
const proxies = (count: number, prefix = 'eu') => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, 'a')}`);
const assign = (pool: readonly string[]) => new Map(sessions.map((session) => [session, rendezvousChoose(session, pool)]));

// How far a binomial count may stray from its mean here: 4 standard deviations. The hash is fixed,
// so the figures are deterministic; 4 sigma only says how lopsided a hash we would accept.
const tolerance = (trials: number, p: number) => 4 * Math.sqrt(trials * p * (1 - p));

describe('rendezvous choice of a sticky session', () => {
  it('ranks every proxy once, highest weight first, whatever order the pool comes in', () => {
    const pool = proxies(8);
    const ranked = rendezvousRank('abc123', pool);
    expect([...ranked].sort()).toEqual([...pool].sort());
    expect(rendezvousRank('abc123', [...pool].reverse())).toEqual(ranked);
    expect(rendezvousChoose('abc123', pool)).toBe(ranked[0]);
    expect(rendezvousChoose('abc123', [])).toBeUndefined();
  });

  it('gives the same proxy on every call and in a fresh module instance (no state in the process)', async () => {
    const pool = proxies(10);
    const first = assign(pool);
    expect(assign(pool)).toEqual(first);
    vi.resetModules();
    const fresh = await import('@/server/gateway/rendezvous');
    expect(fresh.rendezvousChoose).not.toBe(rendezvousChoose);
    expect(new Map(sessions.map((session) => [session, fresh.rendezvousChoose(session, pool)]))).toEqual(first);
  });

  it('keeps the same answers as every other replica and version: the weights are pinned', () => {
    // Changing the hash would move every session on a rolling upgrade (replicas would disagree):
    // these figures may only change on purpose.
    expect(rendezvousRank('abc123', ['a', 'b', 'c', 'd', 'e'])).toEqual(GOLDEN_ABC123);
    expect(rendezvousRank('0f8fad5b-d9cb-469f-a165-70867728950e', ['eu-aaaa1', 'eu-aaaa2', 'us-aaaa1'])).toEqual(GOLDEN_UUID);
  });

  it('spreads 10,000 sessions evenly over 10 proxies', () => {
    const counts = new Map<string, number>();
    for (const proxy of assign(proxies(10)).values()) counts.set(proxy as string, (counts.get(proxy as string) ?? 0) + 1);
    expect(counts.size).toBe(10);
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThanOrEqual(tolerance(10_000, 1 / 10));
  });

  it('moves only the sessions of a proxy that goes away, spread over the others', () => {
    const pool = proxies(10);
    const before = assign(pool);
    const gone = pool[3] as string;
    const after = assign(pool.filter((proxy) => proxy !== gone));
    const moved = sessions.filter((session) => before.get(session) !== after.get(session));
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.every((session) => before.get(session) === gone)).toBe(true);
    expect(moved.length).toBe(sessions.filter((session) => before.get(session) === gone).length);
    const landed = new Map<string, number>();
    for (const session of moved) landed.set(after.get(session) as string, (landed.get(after.get(session) as string) ?? 0) + 1);
    expect(landed.size).toBe(9);
    for (const count of landed.values()) expect(Math.abs(count - moved.length / 9)).toBeLessThanOrEqual(tolerance(moved.length, 1 / 9));
  });

  it.each([2, 5, 10, 30])('a proxy added to %i takes about 1/(N+1) of the sessions, and only those move', (count) => {
    const pool = proxies(count);
    const before = assign(pool);
    const added = 'us-new01';
    const after = assign([...pool, added]);
    const moved = sessions.filter((session) => before.get(session) !== after.get(session));
    expect(moved.every((session) => after.get(session) === added)).toBe(true);
    const p = 1 / (count + 1);
    expect(Math.abs(moved.length - sessions.length * p)).toBeLessThanOrEqual(tolerance(sessions.length, p));
  });
});

// Computed by an independent script (node:crypto's createHash and the same formula, not this module).
const GOLDEN_ABC123 = ['b', 'c', 'e', 'a', 'd'];
const GOLDEN_UUID = ['us-aaaa1', 'eu-aaaa1', 'eu-aaaa2'];
