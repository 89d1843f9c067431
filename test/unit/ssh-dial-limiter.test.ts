import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DialLimiter, dialSilenceMs, dialStallMs, parkWhenStalled, type DialSlot } from '@/server/ssh/dial-limiter';

/** Settles with the release, or 'waiting' while the promise is pending. */
async function state(promise: Promise<DialSlot>): Promise<DialSlot | 'waiting' | 'rejected'> {
  const pending = Symbol('pending');
  const value = await Promise.race([promise.catch(() => 'rejected' as const), Promise.resolve().then(() => pending)]);
  return value === pending ? 'waiting' : (value as DialSlot | 'rejected');
}

const granted = (value: unknown) => typeof value === 'object' && value !== null && 'release' in value;

describe('the SSH dial limiter', () => {
  it('lets at most perAddress dials to one address through, and the next one when a slot is released', async () => {
    const limiter = new DialLimiter({ maxInFlight: 10, perAddress: 2 });
    const first = await limiter.acquire('lab1:22');
    await limiter.acquire('lab1:22');
    const third = limiter.acquire('lab1:22');
    expect(await state(third)).toBe('waiting');
    expect(limiter.queued).toBe(1);
    // Another address is not held up by the full one.
    expect(granted(await state(limiter.acquire('lab2:2222')))).toBe(true);

    first.release();
    expect(granted(await state(third))).toBe(true);
    expect(limiter.inFlight).toBe(3);
  });

  it('lets at most maxInFlight dials through in the whole process, oldest waiter first', async () => {
    const limiter = new DialLimiter({ maxInFlight: 2, perAddress: 4 });
    const a = await limiter.acquire('a:22');
    await limiter.acquire('b:22');
    const c = limiter.acquire('c:22');
    const d = limiter.acquire('d:22');
    expect(await state(c)).toBe('waiting');
    expect(await state(d)).toBe('waiting');

    a.release();
    expect(granted(await state(c))).toBe(true);
    expect(await state(d)).toBe('waiting');
  });

  it('skips a waiter whose address is full for one behind it whose address has room', async () => {
    const limiter = new DialLimiter({ maxInFlight: 2, perAddress: 1 });
    const a1 = await limiter.acquire('a:22');
    const b1 = await limiter.acquire('b:22');
    const a2 = limiter.acquire('a:22');
    const c1 = limiter.acquire('c:22');
    b1.release(); // a global slot frees, but a:22 is still full
    expect(await state(a2)).toBe('waiting');
    expect(granted(await state(c1))).toBe(true);
    a1.release();
    expect(granted(await state(a2))).toBe(true);
  });

  it('lets urgent dials (health checks) go ahead of queued ordinary ones, oldest urgent first', async () => {
    const limiter = new DialLimiter({ maxInFlight: 10, perAddress: 1 });
    const held = await limiter.acquire('lab1:22');
    const order: string[] = [];
    // each dial passes its slot on at once, so the order of grants is the queue's order
    const queue = (name: string, urgent: boolean) =>
      limiter.acquire('lab1:22', { urgent }).then((slot) => {
        order.push(name);
        slot.release();
      });
    const dials = [queue('pooled-1', false), queue('pooled-2', false), queue('check-1', true), queue('check-2', true)];
    held.release();
    await Promise.all(dials);
    expect(order).toEqual(['check-1', 'check-2', 'pooled-1', 'pooled-2']);
  });

  it('ends a queued dial with its signal, which then never takes a slot', async () => {
    const limiter = new DialLimiter({ maxInFlight: 1, perAddress: 1 });
    const held = await limiter.acquire('a:22');
    const controller = new AbortController();
    const queued = limiter.acquire('a:22', { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(queued).rejects.toThrow('caller gave up');
    expect(limiter.queued).toBe(0);
    held.release();
    expect(limiter.inFlight).toBe(0);
    await expect(limiter.acquire('a:22', { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow('already');
  });

  it('removes its abort listener from a long-lived signal once the slot is granted', async () => {
    const limiter = new DialLimiter({ maxInFlight: 1, perAddress: 1 });
    const signal = new AbortController().signal;
    for (let round = 0; round < 30; round += 1) {
      const held = await limiter.acquire('a:22', { signal });
      const queued = limiter.acquire('a:22', { signal });
      held.release();
      (await queued).release();
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('counts a released slot once, and refuses limits that are not positive integers', async () => {
    const limiter = new DialLimiter({ maxInFlight: 2, perAddress: 2 });
    const { release } = await limiter.acquire('a:22');
    release();
    release();
    expect(limiter.inFlight).toBe(0);
    expect(() => limiter.configure({ maxInFlight: 0, perAddress: 4 })).toThrow(/maxInFlight must be a positive integer/);
  });

  it('lets a parked (stalled) dial keep its address but give its process-wide place to the next dial', async () => {
    const limiter = new DialLimiter({ maxInFlight: 1, perAddress: 1 });
    const silent = await limiter.acquire('dead:22');
    const live = limiter.acquire('live:22');
    const sameDead = limiter.acquire('dead:22');
    expect(await state(live)).toBe('waiting');
    silent.park();
    silent.park();
    expect(granted(await state(live))).toBe(true);
    expect(await state(sameDead)).toBe('waiting');
    silent.release();
    (await live).release();
    expect(granted(await state(sameDead))).toBe(true);
    expect(limiter.inFlight).toBe(1);
  });

  describe('parkWhenStalled', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    function watched(serverBytes: () => number) {
      vi.useFakeTimers();
      const slot = { park: vi.fn(), release: vi.fn() };
      return { slot, stopWatching: parkWhenStalled(slot, serverBytes) };
    }

    it('parks a dial whose server has sent nothing by dialSilenceMs (a mute or unreachable host)', () => {
      const { slot } = watched(() => 0);
      vi.advanceTimersByTime(dialSilenceMs - 1);
      expect(slot.park).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(slot.park).toHaveBeenCalledOnce();
    });

    it('lets a dial whose server has spoken keep its place until dialStallMs', () => {
      const { slot } = watched(() => 41); // the banner arrived
      vi.advanceTimersByTime(dialStallMs - 1);
      expect(slot.park).not.toHaveBeenCalled();
      vi.advanceTimersByTime(1);
      expect(slot.park).toHaveBeenCalledOnce();
    });

    it('stops watching a dial that ended', () => {
      const { slot, stopWatching } = watched(() => 0);
      stopWatching();
      vi.advanceTimersByTime(dialStallMs);
      expect(slot.park).not.toHaveBeenCalled();
    });
  });

  it('applies raised limits to the dials already waiting', async () => {
    const limiter = new DialLimiter({ maxInFlight: 1, perAddress: 1 });
    await limiter.acquire('a:22');
    const waiting = limiter.acquire('a:22');
    limiter.configure({ maxInFlight: 2, perAddress: 2 });
    expect(granted(await state(waiting))).toBe(true);
  });
});
