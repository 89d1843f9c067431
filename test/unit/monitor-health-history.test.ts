import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '@/server/control/clock';
import { Housekeeping } from '@/server/control/housekeeping';
import { Monitor } from '@/server/control/monitor';
import type { ProviderSet } from '@/server/control/provider-set';
import type { Target } from '@/server/providers/contract';
import { openStore, type Store } from '@/server/store';
import { createMetrics, type Metrics } from '@/server/telemetry/metrics';
import { providerSetOf, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

const target = (name: string, ready: boolean, reason = ready ? 'Reachable' : 'Unreachable'): Target => ({
  name,
  ready,
  reason,
  message: ready ? '' : 'dial tcp: connection refused',
  details: { user: 'kvm2lab', pool: 'default' },
  latencyMs: 12,
  checkedAt: new Date().toISOString(),
});

let dir: ReturnType<typeof tempDir>;
let store: Store;
let metrics: Metrics;
let monitor: Monitor | undefined;

beforeEach(async () => {
  dir = tempDir();
  store = await openStore({ dataDir: dir.path });
  metrics = createMetrics();
});

afterEach(async () => {
  await monitor?.stop();
  monitor = undefined;
  await store.close();
  dir.remove();
  vi.useRealTimers();
});

function monitorOver(providers: ProviderSet, options: { intervalMs?: number; timeoutMs?: number } = {}) {
  monitor = new Monitor({
    providers,
    store,
    clock: systemClock,
    logger: silentLogger(),
    metrics,
    intervalMs: options.intervalMs ?? 60_000,
    timeoutMs: options.timeoutMs ?? 15_000,
    graceMs: 1_000,
  });
  return monitor;
}

async function gauge(provider: string, targetName: string): Promise<number | undefined> {
  const { values } = await metrics.providerTargetUp.get();
  return values.find((value) => value.labels.provider === provider && value.labels.target === targetName)?.value;
}

describe('provider health monitor', () => {
  it('checks every provider each interval, storing the latest result, the history and the gauge', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const one = new FakeProvider({ name: 'kvm2-home', targets: [target('lab1', true), target('lab2', true)] });
    const two = new FakeProvider({ name: 'kvm2-office', targets: [target('office', false)] });
    monitorOver(await providerSetOf([one, two])).start();
    await vi.advanceTimersByTimeAsync(0);
    one.targets = [target('lab1', true), target('lab2', false, 'PoolNotActive')];
    await vi.advanceTimersByTimeAsync(60_000);

    expect(one.callsOf('check')).toHaveLength(2);
    const latest = (await store.health.latest('kvm2-home'))[0]!.targets;
    expect(latest.map((t) => [t.name, t.ready, t.reason])).toEqual([
      ['lab1', true, 'Reachable'],
      ['lab2', false, 'PoolNotActive'],
    ]);
    expect(latest[0]?.details).toEqual({ user: 'kvm2lab', pool: 'default' });
    const history = await store.health.history({ provider: 'kvm2-home', sinceMs: 0, target: 'lab2' });
    expect(history.map((sample) => sample.reason)).toEqual(['Reachable', 'PoolNotActive']);
    expect(history.every((sample) => sample.poolAvailableGiB === undefined)).toBe(true);
    expect(await gauge('kvm2-home', 'lab1')).toBe(1);
    expect(await gauge('kvm2-home', 'lab2')).toBe(0);
    expect(await gauge('kvm2-office', 'office')).toBe(0);
    expect(await metrics.registry.metrics()).toContain('proxy_operator_provider_target_up{provider="kvm2-home",target="lab1"} 1');
  });

  it("keeps each check's pool free space in the history, for the free-space chart", async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const withSpace = (free: string): Target => ({ ...target('lab1', true), details: { pool: 'default', poolAvailableGiB: free } });
    const provider = new FakeProvider({ name: 'kvm2-home', targets: [withSpace('40.5')] });
    monitorOver(await providerSetOf([provider])).start();
    await vi.advanceTimersByTimeAsync(0);
    provider.targets = [withSpace('12.25')];
    await vi.advanceTimersByTimeAsync(60_000);

    const history = await store.health.history({ provider: 'kvm2-home', sinceMs: 0 });
    expect(history.map((sample) => sample.poolAvailableGiB)).toEqual([40.5, 12.25]);
  });

  it('aborts a check at the timeout, and records Timeout on the known targets when the provider ignores the abort', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'kvm2-home', targets: [target('lab1', true), target('lab2', true)] });
    const set = await providerSetOf([provider]);
    const m = monitorOver(set, { timeoutMs: 15_000 });
    await m.runOnce();

    let signalAbortedAt: number | undefined;
    provider.check = (options) =>
      new Promise(() => {
        options?.signal?.addEventListener('abort', () => (signalAbortedAt = Date.now()));
      });
    const started = Date.now();
    const round = m.runOnce();
    await vi.advanceTimersByTimeAsync(16_000);
    const [result] = await round;
    expect(signalAbortedAt! - started).toBe(15_000);
    expect(result?.targets.map((t) => [t.name, t.ready, t.reason])).toEqual([
      ['lab1', false, 'Timeout'],
      ['lab2', false, 'Timeout'],
    ]);
    expect(await gauge('kvm2-home', 'lab1')).toBe(0);
  });

  it('records a provider whose check throws as APIError', async () => {
    const provider = new FakeProvider({ name: 'kvm2-home' }).failNext('check', new Error('config broken'));
    const [result] = await monitorOver(await providerSetOf([provider])).runOnce();
    expect(result?.targets).toMatchObject([{ name: 'kvm2-home', ready: false, reason: 'APIError', message: 'config broken' }]);
  });

  it('drops the gauge series of a provider that left the config, and of a target that went away', async () => {
    const one = new FakeProvider({ name: 'kvm2-home', targets: [target('lab1', true), target('lab2', true)] });
    const two = new FakeProvider({ name: 'kvm2-office', targets: [target('office', true)] });
    const set = await providerSetOf([one, two]);
    const m = monitorOver(set);
    await m.runOnce();
    one.targets = [target('lab1', true)];
    await set.replace({ handles: new Map([['kvm2-home', { provider: one }]]), unavailable: new Map(), version: 'v2' });
    await m.runOnce();
    expect(await gauge('kvm2-home', 'lab1')).toBe(1);
    expect(await gauge('kvm2-home', 'lab2')).toBeUndefined();
    expect(await gauge('kvm2-office', 'office')).toBeUndefined();
  });

  it('prunes history older than the retention', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'kvm2-home', targets: [target('lab1', true)] });
    const m = monitorOver(await providerSetOf([provider]));
    const day = 86_400_000;
    for (let i = 0; i < 10; i++) {
      provider.targets = [target('lab1', true)];
      await m.runOnce();
      vi.setSystemTime(Date.now() + day);
    }
    const housekeeping = new Housekeeping({
      store,
      clock: systemClock,
      logger: silentLogger(),
      intervalMs: 600_000,
      healthHistoryRetentionMs: 7 * day,
      eventRetentionMs: 7 * day,
    });
    expect((await housekeeping.prune()).healthSamples).toBe(3);
    expect(await store.health.history({ provider: 'kvm2-home', sinceMs: 0 })).toHaveLength(7);
    expect((await store.health.latest('kvm2-home'))[0]?.targets).toHaveLength(1);
  });
});
