// The record modules behave the same on SQLite and PostgreSQL: Proxy records with their three
// writers, the unique name, transactions that roll back whole, health and probe history with
// downsampling, and replica heartbeats.
import { describe, expect, it } from 'vitest';
import { ProxyExistsError } from '@/server/store/errors';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
const spec = { mode: 'Static' as const, address: '192.0.2.10', port: 3128, labels: {} };
const now = '2026-12-01T10:00:00.000Z';

describe.each(storeEngines)('store records on %s', (engine) => {
  it('keep a Proxy with its spec, status and probe, each written on its own, and refuse a second one of the same name', async () => {
    const store = await engines.open(engine);
    const created = await store.proxies.insert({ uid: 'u1', name: 'alpha', spec, now });
    expect(created).toMatchObject({ uid: 'u1', name: 'alpha', spec, status: { phase: 'Pending', conditions: [] }, generation: 1, createdAt: now });
    await expect(store.proxies.insert({ uid: 'u2', name: 'alpha', spec, now })).rejects.toThrow(ProxyExistsError);
    expect(await store.proxies.updateSpec({ uid: 'u1', spec: { ...spec, port: 8080 }, now })).toBe(true);
    expect(await store.proxies.writeStatus('u1', { phase: 'Running', ip: '192.0.2.10', conditions: [] })).toBe(true);
    const probe = {
      target: '192.0.2.10:8080',
      healthy: true,
      condition: { type: 'Healthy' as const, status: 'True' as const, reason: 'ProxyAnswered', message: 'ok', lastTransitionTime: now },
      probedAt: now,
    };
    expect(await store.proxies.writeProbe('u1', probe)).toBe(true);
    expect(await store.proxies.requestDeletion({ uid: 'u1', now })).toBe(true);
    expect(await store.proxies.get('alpha')).toMatchObject({
      generation: 2,
      spec: { port: 8080 },
      status: { phase: 'Running' },
      probe,
      deletionRequestedAt: now,
    });
    expect(await store.proxies.names()).toEqual(['alpha']);
    expect(await store.proxies.uids()).toEqual(new Set(['u1']));
    expect(await store.proxies.writeStatus('nobody', { phase: 'Running', conditions: [] })).toBe(false);
    await store.proxies.remove('u1');
    expect(await store.proxies.list()).toEqual([]);
  });

  it('roll a transaction back whole when it throws, and keep statements from outside it out of it', async () => {
    const store = await engines.open(engine);
    const failing = store.transaction(async (tx) => {
      await tx.proxies.insert({ uid: 'u1', name: 'alpha', spec, now });
      await tx.events.record('u1', { type: 'Normal', reason: 'Created', message: 'Proxy created', atMs: 1 });
      throw new Error('changed my mind');
    });
    // Issued while the transaction is open; it must neither see nor join it.
    const outside = store.proxies.insert({ uid: 'u2', name: 'beta', spec, now });
    await expect(failing).rejects.toThrow('changed my mind');
    await outside;
    expect(await store.proxies.names()).toEqual(['beta']);
    expect(await store.events.list('u1')).toEqual([]);
  });

  it('keep the latest health per target in order, the history, and thin old history to one sample per bucket', async () => {
    const store = await engines.open(engine);
    const target = (name: string, ready: boolean, atMs: number) => ({
      name,
      ready,
      reason: ready ? 'Reachable' : 'Unreachable',
      message: '',
      details: { poolAvailableGiB: '12.5' },
      latencyMs: 1.5,
      checkedAt: new Date(atMs).toISOString(),
    });
    for (let minute = 0; minute < 10; minute++) {
      await store.health.record({
        provider: 'kvm',
        targets: [target('b', true, minute * 60_000), target('a', minute % 2 === 0, minute * 60_000)],
        nowMs: minute * 60_000,
      });
    }
    expect((await store.health.latest())[0]).toMatchObject({
      provider: 'kvm',
      targets: [
        { name: 'b', ready: true },
        { name: 'a', ready: false, latencyMs: 1.5 },
      ],
    });
    const history = await store.health.history({ provider: 'kvm', sinceMs: 0, target: 'a' });
    expect(history).toHaveLength(10);
    expect(history[0]).toMatchObject({ ready: true, poolAvailableGiB: 12.5, checkedAt: new Date(0).toISOString() });
    // Five-minute buckets before minute 10: minutes 0 and 5 stay for each target.
    expect(await store.health.downsampleBefore(10 * 60_000, 5 * 60_000)).toBe(16);
    expect((await store.health.history({ provider: 'kvm', sinceMs: 0, target: 'b' })).map((sample) => sample.checkedAt)).toEqual([
      new Date(0).toISOString(),
      new Date(300_000).toISOString(),
    ]);
    expect(await store.health.pruneBefore(60_000)).toBe(2);

    await store.probes.record({ proxyUid: 'u1', target: 't', healthy: true, latencyMs: 2.25, probedAtMs: 1_000 });
    await store.probes.record({ proxyUid: 'u1', target: 't', healthy: false, latencyMs: 0, probedAtMs: 2_000 });
    expect(await store.probes.history({ proxyUid: 'u1', sinceMs: 1_500 })).toEqual([{ probedAt: new Date(2_000).toISOString(), healthy: false, latencyMs: 0 }]);
    expect(await store.probes.pruneBefore(1_500)).toBe(1);
  });

  it('keep each replica’s heartbeat and since when it leads', async () => {
    const store = await engines.open(engine);
    await store.replicas.heartbeat({ id: 'r1', address: 'http://127.0.0.1:3001', startedAtMs: 1_000, heartbeatAtMs: 2_000, leaderSinceMs: 1_500 });
    await store.replicas.heartbeat({ id: 'r2', address: 'http://127.0.0.1:3002', startedAtMs: 1_200, heartbeatAtMs: 2_100 });
    await store.replicas.heartbeat({ id: 'r1', address: 'http://127.0.0.1:3001', startedAtMs: 1_000, heartbeatAtMs: 4_000 });
    expect(await store.replicas.list()).toEqual([
      { id: 'r1', address: 'http://127.0.0.1:3001', startedAtMs: 1_000, heartbeatAtMs: 4_000 },
      { id: 'r2', address: 'http://127.0.0.1:3002', startedAtMs: 1_200, heartbeatAtMs: 2_100 },
    ]);
    expect(await store.replicas.pruneSilentSince(3_000)).toBe(1);
  });
});
