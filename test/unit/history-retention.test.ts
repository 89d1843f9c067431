// Housekeeping keeps a week of provider health and probe history: every sample of the last day,
// one per five minutes and series before that, nothing older than the retention.
import { describe, expect, it } from 'vitest';
import { downsampleBucketMs, fullResolutionMs, Housekeeping } from '@/server/control/housekeeping';
import type { Store } from '@/server/store';
import { silentLogger } from '@/test/fakes/control-plane';
import { storePerTest } from '../support/temp-store';

const minute = 60_000;
const day = 24 * 60 * minute;
const nowMs = Date.UTC(2026, 11, 1, 12);

let store: Store;
storePerTest((opened) => (store = opened));

const housekeeping = () =>
  new Housekeeping({
    store,
    clock: { now: () => nowMs, setTimeout: () => undefined, clearTimeout: () => undefined },
    logger: silentLogger(),
    intervalMs: 600_000,
    healthHistoryRetentionMs: 7 * day,
    eventRetentionMs: 7 * day,
  });

/** One sample a minute for the last `days` days, oldest first. */
const minutes = (days: number) => Array.from({ length: (days * day) / minute }, (_, i) => nowMs - days * day + (i + 1) * minute);

// Seeding a week of one-minute samples is ~23,000 inserts: 3.9 s alone on an idle 2-core machine,
// past vitest's 5 s default in a loaded unit run.
const seedingTimeoutMs = 60_000;

describe('history retention', () => {
  it(
    'thins probe history past a day to one probe per proxy and bucket, and drops it past the retention',
    async () => {
      for (const uid of ['uid-a', 'uid-b']) {
        for (const at of minutes(8)) await store.probes.record({ proxyUid: uid, target: '10.0.0.1:3128', healthy: true, latencyMs: 5, probedAtMs: at });
      }
      await housekeeping().prune();
      for (const uid of ['uid-a', 'uid-b']) {
        const kept = (await store.probes.history({ proxyUid: uid, sinceMs: 0 })).map((sample) => Date.parse(sample.probedAt));
        expect(kept[0]).toBeGreaterThanOrEqual(nowMs - 7 * day);
        expect(kept.filter((at) => at >= nowMs - fullResolutionMs)).toHaveLength(day / minute + 1); // both ends inclusive
        const older = kept.filter((at) => at < nowMs - fullResolutionMs);
        expect(new Set(older.map((at) => Math.floor(at / downsampleBucketMs))).size).toBe(older.length);
        expect(older.length).toBeGreaterThanOrEqual((6 * day) / downsampleBucketMs);
        expect(older.length).toBeLessThanOrEqual((6 * day) / downsampleBucketMs + 1);
      }
    },
    seedingTimeoutMs,
  );

  it(
    'thins provider health history the same way, per target',
    async () => {
      for (const at of minutes(3)) {
        await store.health.record({
          provider: 'kvm2-home',
          nowMs: at,
          targets: ['lab1', 'lab2'].map((name) => ({
            name,
            ready: true,
            reason: 'Reachable',
            message: '',
            details: {},
            latencyMs: 2,
            checkedAt: new Date(at).toISOString(),
          })),
        });
      }
      await housekeeping().prune();
      for (const target of ['lab1', 'lab2']) {
        const kept = (await store.health.history({ provider: 'kvm2-home', target, sinceMs: 0 })).map((sample) => Date.parse(sample.checkedAt));
        expect(kept.filter((at) => at >= nowMs - fullResolutionMs)).toHaveLength(day / minute + 1); // both ends inclusive
        expect(kept.filter((at) => at < nowMs - fullResolutionMs).length).toBeLessThanOrEqual((2 * day) / downsampleBucketMs + 1);
      }
    },
    seedingTimeoutMs,
  );

  it('forgets the probes of a Proxy that is removed', async () => {
    await store.proxies.insert({
      uid: 'uid-a',
      name: 'alpha',
      spec: { mode: 'Static', address: '192.0.2.1', port: 3128, labels: {} },
      now: new Date(nowMs).toISOString(),
    });
    await store.probes.record({ proxyUid: 'uid-a', target: '192.0.2.1:3128', healthy: true, latencyMs: 5, probedAtMs: nowMs });
    await store.proxies.remove('uid-a');
    expect(await store.probes.history({ proxyUid: 'uid-a', sinceMs: 0 })).toEqual([]);
  });
});
