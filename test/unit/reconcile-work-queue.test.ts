import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '@/server/control/clock';
import { WorkQueue } from '@/server/control/work-queue';
import type { CallOptions, CreateRequest, Instance } from '@/server/providers/contract';
import { controlPlane, type Harness, managedProxy } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';
import { nextTurn } from '@/test/support/wait';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  vi.useRealTimers();
});

describe('WorkQueue', () => {
  it('holds a key once however often it is added', async () => {
    const queue = new WorkQueue(systemClock);
    queue.add('a');
    queue.add('a');
    queue.add('b');
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
  });

  it('does not hand out a key being processed; an add meanwhile brings it back after done', async () => {
    const queue = new WorkQueue(systemClock);
    queue.add('a');
    const first = await queue.get();
    queue.add('a');
    queue.add('b');
    expect(await queue.get()).toBe('b');
    queue.done(first!);
    expect(await queue.get()).toBe('a');
  });

  it('keeps the earliest of several delayed adds, and addUnlessScheduled respects it', async () => {
    vi.useFakeTimers({ now: 0 });
    const queue = new WorkQueue(systemClock);
    queue.addAfter('a', 5_000);
    queue.addAfter('a', 9_000);
    queue.addUnlessScheduled('a');
    expect(queue.length).toBe(0);
    expect(queue.scheduledAt('a')).toBe(5_000);
    queue.addAfter('a', 1_000);
    expect(queue.scheduledAt('a')).toBe(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(queue.length).toBe(1);
  });

  it('wakes waiting workers with undefined on shutdown', async () => {
    const queue = new WorkQueue(systemClock);
    const waiting = queue.get();
    queue.shutDown();
    expect(await waiting).toBeUndefined();
  });
});

describe('reconciler workers', () => {
  it('never run two passes of one Proxy at once, while different Proxies run in parallel (3 workers)', async () => {
    const provider = new FakeProvider({ name: 'fake-1', initialState: 'Provisioning' });
    const inside = new Map<string, number>();
    let mostForOneKey = 0;
    let mostOverall = 0;
    let overall = 0;
    let releaseBusy = () => {};
    const busy = new Promise<void>((resolve) => (releaseBusy = resolve));
    const realCreate = provider.create.bind(provider);
    provider.create = async (request: CreateRequest, options?: CallOptions): Promise<Instance> => {
      const now = (inside.get(request.name) ?? 0) + 1;
      inside.set(request.name, now);
      overall++;
      mostForOneKey = Math.max(mostForOneKey, now);
      mostOverall = Math.max(mostOverall, overall);
      await busy; // held until all three workers are inside, so overlaps show
      await nextTurn();
      inside.set(request.name, now - 1);
      overall--;
      return realCreate(request, options);
    };
    harness = await controlPlane({ providers: [provider], provisioningPollMs: 5 });
    for (const name of ['a', 'b', 'c', 'd']) harness.proxies.create(managedProxy(name));
    for (let i = 0; i < 5; i++) harness.reconciler.enqueue('a');
    await expect.poll(() => overall, { message: 'three Creates at once' }).toBe(3);
    releaseBusy();
    await harness.settle();
    expect(mostForOneKey).toBe(1);
    expect(mostOverall).toBe(3);
  });
});
