import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay } from '@/server/control/backoff';
import { ErrTransient } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy, updateOf } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.useRealTimers();
});

describe('backoffDelay', () => {
  it.each([
    [0, 0],
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [9, 256_000],
    [10, 300_000],
    [11, 300_000],
    [1_000, 300_000],
  ])('after %i failures waits %i ms (1 s doubling, capped at 5 min)', (failures, delay) => {
    expect(backoffDelay(failures)).toBe(delay);
  });

  it('honours a configured base and cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, { baseMs: 10, capMs: 50 }))).toEqual([10, 20, 40, 50, 50]);
  });
});

describe('a Proxy whose passes keep failing', () => {
  it('is retried on the doubling curve up to the cap, and starts over after a success', async () => {
    const now = Date.UTC(2026, 0, 1);
    vi.useFakeTimers({ now });
    const provider = new FakeProvider({ name: 'fake-1' }).failAlways('create', new ErrTransient('host unreachable'));
    harness = await controlPlane({ providers: [provider], backoff: { baseMs: 1_000, capMs: 8_000 }, resyncIntervalMs: 3_600_000 });
    await harness.proxies.create(managedProxy('alpha'));
    await vi.advanceTimersByTimeAsync(0);

    const waits: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const due = harness.reconciler.scheduledAt('alpha')!;
      waits.push(due - Date.now());
      await vi.advanceTimersByTimeAsync(due - Date.now());
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    expect(provider.callsOf('create')).toHaveLength(7);
    expect(harness.reconciler.failureCount('alpha')).toBe(7);

    provider.failAlways('create', undefined);
    await vi.advanceTimersByTimeAsync(harness.reconciler.scheduledAt('alpha')! - Date.now());
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');
    expect(harness.reconciler.failureCount('alpha')).toBe(0);
  });

  it('is picked up at once, ahead of its backoff, when its spec changes', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'fake-1' }).failNext('create', { error: new ErrTransient('host unreachable'), times: 5 });
    harness = await controlPlane({ providers: [provider] });
    const spec = managedProxy('alpha');
    await harness.proxies.create(spec);
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 4; i++) await vi.advanceTimersByTimeAsync(harness.reconciler.scheduledAt('alpha')! - Date.now());
    expect(harness.reconciler.scheduledAt('alpha')! - Date.now()).toBe(16_000);

    await harness.proxies.update('alpha', updateOf(spec, { port: 3129 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(provider.callsOf('create')).toHaveLength(6);
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');
  });
});
