// A health target's pool facts are stored typed (migration 12's pool column) and read back as they
// were written; rows an earlier version wrote (the facts only as text in `details`) still read
// with their typed pool, on SQLite and PostgreSQL alike.
import { describe, expect, it } from 'vitest';
import type { Target } from '@/server/providers/contract';
import { openStore } from '@/server/store';
import { migrations } from '@/server/store/migrations';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
const gib = 1024 ** 3;

/** What the version before the pool column wrote: the facts only as the spec's text details. */
const legacyDetails = { user: 'virt', pool: 'vms', poolState: 'running', poolCapacityGiB: '200.00', poolAvailableGiB: '150.25' };

const target = (overrides: Partial<Target> = {}): Target => ({
  name: 'lab1',
  ready: true,
  reason: 'Reachable',
  message: '',
  details: legacyDetails,
  latencyMs: 3,
  checkedAt: new Date(60_000).toISOString(),
  ...overrides,
});

describe.each(storeEngines)('health pool facts on %s', (engine) => {
  it('read back typed as recorded, in bytes, with the free-space history as before', async () => {
    const store = await engines.open(engine);
    const pool = { name: 'vms', state: 'running', capacityBytes: 200 * gib + 7, availableBytes: 150.25 * gib + 3 };
    await store.health.record({ provider: 'kvm2-home', targets: [target({ pool })], nowMs: 60_000 });
    expect((await store.health.latest('kvm2-home'))[0]?.targets).toEqual([target({ pool })]);
    expect(await store.health.history({ provider: 'kvm2-home', sinceMs: 0 })).toEqual([
      { target: 'lab1', ready: true, reason: 'Reachable', latencyMs: 3, checkedAt: new Date(60_000).toISOString(), poolAvailableGiB: 150.25 },
    ]);
  });

  it('leave the pool out for a target that has none', async () => {
    const store = await engines.open(engine);
    await store.health.record({ provider: 'fake', targets: [target({ details: {} })], nowMs: 60_000 });
    const [read] = (await store.health.latest('fake'))[0]?.targets ?? [];
    expect(read).not.toHaveProperty('pool');
    expect((await store.health.history({ provider: 'fake', sinceMs: 0 }))[0]).not.toHaveProperty('poolAvailableGiB');
  });

  it('read rows the previous version wrote (no pool column then) with their pool typed from the details', async () => {
    const location = await engines.location(engine);
    const previous = await openStore({ ...location, migrations: migrations.filter((migration) => migration.version < 12) });
    try {
      // The previous version's own statements, column for column.
      const values = [1, 'Reachable', '', JSON.stringify(legacyDetails), 3, 60_000];
      await previous.sql.run(
        `INSERT INTO provider_health (provider, target, position, ready, reason, message, details, latency_ms, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ['kvm2-home', 'lab1', 0, ...values],
      );
      await previous.sql.run(
        `INSERT INTO provider_health_history (provider, target, ready, reason, message, details, latency_ms, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        ['kvm2-home', 'lab1', ...values],
      );
    } finally {
      await previous.close();
    }
    const store = await openStore(location);
    try {
      const [read] = (await store.health.latest('kvm2-home'))[0]?.targets ?? [];
      expect(read?.details).toEqual(legacyDetails);
      expect(read?.pool).toEqual({ name: 'vms', state: 'running', capacityBytes: 200 * gib, availableBytes: 150.25 * gib });
      expect((await store.health.history({ provider: 'kvm2-home', sinceMs: 0 }))[0]?.poolAvailableGiB).toBe(150.25);
    } finally {
      await store.close();
    }
  });
});
