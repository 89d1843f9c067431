import { afterEach, describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import { ErrTransient } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.useRealTimers();
});

describe('periodic resync', () => {
  it('notices an instance that vanished behind its back and recreates it within one interval', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider], resyncIntervalMs: 60_000 });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.proxies.create(managedProxy('beta'));
    await vi.advanceTimersByTimeAsync(0);
    expect(provider.callsOf('create')).toHaveLength(2);

    provider.remove(`fake/${instanceName('alpha')}`);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(provider.callsOf('get')).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(
      provider
        .callsOf('get')
        .map((call) => call.subject)
        .sort(),
    ).toEqual([`fake/${instanceName('alpha')}`, `fake/${instanceName('beta')}`].sort());
    expect(provider.callsOf('create')).toHaveLength(3);
    expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');
  });

  it('does not cut a backoff short', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const provider = new FakeProvider({ name: 'fake-1' }).failAlways('create', new ErrTransient('unreachable'));
    harness = await controlPlane({ providers: [provider], resyncIntervalMs: 1_000, backoff: { baseMs: 10_000, capMs: 10_000 } });
    await harness.proxies.create(managedProxy('alpha'));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(provider.callsOf('create')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(provider.callsOf('create')).toHaveLength(2);
  });

  it('picks up Proxies that were in the store before the start', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider] });
    await harness.pause();
    await harness.proxies.create(managedProxy('alpha'));
    await harness.proxies.create(managedProxy('beta'));
    expect(provider.calls).toEqual([]);
    await harness.restart();
    await harness.settle();
    expect((await harness.proxies.list()).map((view) => view.status.phase)).toEqual(['Running', 'Running']);
  });
});
