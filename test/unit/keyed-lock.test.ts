import { describe, expect, it } from 'vitest';
import { KeyedLock } from '@/server/providers/kvm2/keyed-lock';
import { nextTurn } from '@/test/support/wait';

// The lock is promise callbacks only: work that waits one turn of the event loop gives every
// other job all the chances it would have to start, as long work would.

describe('KeyedLock', () => {
  it('runs work for one key one at a time, in arrival order', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const job = (id: string) =>
      lock.run('dom', async () => {
        log.push(`start ${id}`);
        await nextTurn();
        log.push(`end ${id}`);
      });
    await Promise.all([job('a'), job('b'), job('c')]);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(lock.size).toBe(0);
  });

  it('lets different keys run at the same time', async () => {
    const lock = new KeyedLock();
    let inside = 0;
    let most = 0;
    const job = (key: string) =>
      lock.run(key, async () => {
        most = Math.max(most, ++inside);
        await nextTurn();
        inside--;
      });
    await Promise.all([job('x'), job('y')]);
    expect(most).toBe(2);
  });

  it('releases the key when the work throws', async () => {
    const lock = new KeyedLock();
    await expect(
      lock.run('k', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(lock.run('k', async () => 'next')).resolves.toBe('next');
  });

  it('stops waiting when the signal aborts, without running the work or blocking the queue', async () => {
    const lock = new KeyedLock();
    let releaseFirst!: () => void;
    const first = lock.run('k', () => new Promise<void>((r) => (releaseFirst = r)));
    const controller = new AbortController();
    let ran = false;
    const second = lock.run(
      'k',
      async () => {
        ran = true;
      },
      controller.signal,
    );
    const third = lock.run('k', async () => 'third');
    controller.abort(new Error('caller gave up'));
    await expect(second).rejects.toThrow('caller gave up');
    releaseFirst();
    await first;
    await expect(third).resolves.toBe('third');
    expect(ran).toBe(false);
  });
});
