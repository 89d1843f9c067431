// Leader election over a real PostgreSQL: exactly one of several replicas leads; when it stops,
// loses its session or lets its lease lapse, it stops its loops first and another takes over; the
// replicas' heartbeats are in the store for /api/cluster; Proxy changes reach the leader.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdvisoryLockLeadership } from '@/server/cluster/advisory-lock';
import { openStore, type Store } from '@/server/store';
import { silentLogger } from '@/test/fakes/control-plane';
import { storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
const heartbeatMs = 100;
const leaseMs = 600;

interface Candidate {
  id: string;
  leadership: AdvisoryLockLeadership;
  /** what the listener heard, in order */
  heard: string[];
  changed: string[];
  leads: () => boolean;
  /** moves this replica's monotonic clock (a freeze, as far as its lease is concerned) */
  advanceClock: (ms: number) => void;
}

const running: Candidate[] = [];
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((candidate) => candidate.leadership.stop()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

function candidate(store: Store, databaseUrl: string, id: string): Candidate {
  let offset = 0;
  const heard: string[] = [];
  const changed: string[] = [];
  const leadership = new AdvisoryLockLeadership({
    databaseUrl,
    sql: store.sql,
    replica: { id, address: `http://127.0.0.1/${id}` },
    heartbeatMs,
    leaseMs,
    logger: silentLogger(),
    onProxyChanged: (name) => changed.push(name),
    monotonic: () => performance.now() + offset,
  });
  leadership.start({ gained: () => heard.push('gained'), lost: (reason) => heard.push(`lost: ${reason}`) });
  const entry = { id, leadership, heard, changed, leads: () => leadership.isLeader(), advanceClock: (ms: number) => (offset += ms) };
  running.push(entry);
  return entry;
}

/** A fresh database and the store on it (the replicas' heartbeats land there). */
async function database(): Promise<{ store: Store; url: string }> {
  const where = await engines.location('postgres');
  const store = await openStore(where);
  stores.push(store);
  return { store, url: where.databaseUrl! };
}

/**
 * Waits until each of `ids` has written `rounds` more heartbeats (each one a try for the lock by a
 * replica that does not lead): the observable point for "nothing changed across heartbeats".
 */
async function heartbeatRounds(store: Store, ids: string[], rounds: number): Promise<void> {
  const beats = async () => new Map((await store.replicas.list()).map((row) => [row.id, row.heartbeatAtMs]));
  for (let round = 0; round < rounds; round++) {
    const before = await beats();
    await vi.waitFor(
      async () => {
        const now = await beats();
        for (const id of ids) expect(now.get(id) ?? -1, `a heartbeat of ${id}`).toBeGreaterThan(before.get(id) ?? -1);
      },
      { timeout: 5_000, interval: heartbeatMs / 4 },
    );
  }
}

describe('leader election on PostgreSQL', () => {
  it('elects exactly one of three replicas and records every heartbeat', async () => {
    const { store, url } = await database();
    const all = ['a', 'b', 'c'].map((id) => candidate(store, url, id));
    await vi.waitFor(() => expect(all.filter((entry) => entry.leads())).toHaveLength(1), { timeout: 5_000 });
    await heartbeatRounds(store, ['a', 'b', 'c'], 2);
    expect(all.filter((entry) => entry.leads())).toHaveLength(1);
    const rows = await store.replicas.list();
    expect(rows.map((row) => row.id).sort()).toEqual(['a', 'b', 'c']);
    expect(rows.filter((row) => row.leaderSinceMs !== undefined).map((row) => row.id)).toEqual(all.filter((entry) => entry.leads()).map((entry) => entry.id));
  });

  it('hands over when the leader stops: the next one leads within a few heartbeats', async () => {
    const { store, url } = await database();
    const first = candidate(store, url, 'first');
    await vi.waitFor(() => expect(first.leads()).toBe(true), { timeout: 5_000 });
    const second = candidate(store, url, 'second');
    await heartbeatRounds(store, ['second'], 2);
    expect(second.leads()).toBe(false);
    await first.leadership.stop();
    expect(first.heard).toEqual(['gained', 'lost: stopping']);
    await vi.waitFor(() => expect(second.leads()).toBe(true), { timeout: 2_000 });
    expect((await store.replicas.list()).map((row) => row.id)).toEqual(['second']);
  });

  it('steps down, loops first, when its lease lapses, and only then can another lead', async () => {
    const { store, url } = await database();
    const first = candidate(store, url, 'first');
    await vi.waitFor(() => expect(first.leads()).toBe(true), { timeout: 5_000 });
    const second = candidate(store, url, 'second');
    first.advanceClock(leaseMs);
    // The check itself steps down, synchronously: the loops hear it before the call returns.
    expect(first.leads()).toBe(false);
    expect(first.heard.at(-1)).toMatch(/^lost: its lease lapsed/);
    await vi.waitFor(() => expect(second.leads()).toBe(true), { timeout: 2_000 });
  });

  it('steps down when its lock session is killed, and the other takes over', async () => {
    const { store, url } = await database();
    const first = candidate(store, url, 'first');
    await vi.waitFor(() => expect(first.leads()).toBe(true), { timeout: 5_000 });
    const second = candidate(store, url, 'second');
    await store.sql.run(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()`);
    await vi.waitFor(() => expect(second.leads()).toBe(true), { timeout: 3_000 });
    expect(first.leads()).toBe(false);
    expect(first.heard.filter((line) => line.startsWith('lost'))).toHaveLength(1);
  });

  it('delivers a Proxy change announced on any replica to the leader', async () => {
    const { store, url } = await database();
    const first = candidate(store, url, 'first');
    await vi.waitFor(() => expect(first.leads()).toBe(true), { timeout: 5_000 });
    const second = candidate(store, url, 'second');
    await vi.waitFor(async () => expect((await store.replicas.list()).map((row) => row.id)).toContain('second'), { timeout: 2_000 });
    await second.leadership.announce('alpha');
    await vi.waitFor(() => expect(first.changed).toEqual(['alpha']), { timeout: 2_000 });
    expect(second.changed).toEqual([]);
  });
});
