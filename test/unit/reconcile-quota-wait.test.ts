import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrQuotaExceeded } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.useRealTimers();
});

const quota = new ErrQuotaExceeded('storage pool "default": 2147483648 bytes available, 11811160064 needed');

describe('quota wait', () => {
  it('waits exactly QuotaRetry (5 min) between attempts, through resyncs, and never fails', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'fake-1' }).failNext('create', { error: quota, times: 3 });
    harness = await controlPlane({ providers: [provider], resyncIntervalMs: 60_000 });
    await harness.proxies.create(managedProxy('alpha'));
    await vi.advanceTimersByTimeAsync(0);
    expect(provider.callsOf('create')).toHaveLength(1);

    for (let round = 1; round <= 3; round++) {
      await vi.advanceTimersByTimeAsync(299_999);
      expect(provider.callsOf('create')).toHaveLength(round);
      const status = (await harness.proxies.get('alpha')).status;
      expect(status.phase).toBe('Provisioning');
      expect(status.conditions.find((c) => c.type === 'Provisioned')).toMatchObject({ status: 'False', reason: 'QuotaExceeded', message: quota.message });
      await vi.advanceTimersByTimeAsync(1);
      expect(provider.callsOf('create')).toHaveLength(round + 1);
    }
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');
    expect(harness.reconciler.failureCount('alpha')).toBe(0);
  });

  it('keeps the QuotaExceeded condition since the first refusal (lastTransitionTime does not move)', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'fake-1' }).failNext('create', { error: quota, times: 2 });
    harness = await controlPlane({ providers: [provider] });
    await harness.proxies.create(managedProxy('alpha'));
    await vi.advanceTimersByTimeAsync(0);
    const first = (await harness.proxies.get('alpha')).status.conditions.find((c) => c.type === 'Provisioned')!;
    await vi.advanceTimersByTimeAsync(300_000);
    const second = (await harness.proxies.get('alpha')).status.conditions.find((c) => c.type === 'Provisioned')!;
    expect(second.reason).toBe('QuotaExceeded');
    expect(second.lastTransitionTime).toBe(first.lastTransitionTime);
    const quotaEvents = (await harness.proxies.events('alpha')).filter((event) => event.reason === 'QuotaExceeded');
    expect(quotaEvents).toHaveLength(1);
    expect(quotaEvents[0]?.count).toBe(2);
  });
});
