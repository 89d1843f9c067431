// The live feed behind GET /api/events: ids, the bounded resume buffer, reset for ids it cannot
// resume from, the per-owner stream bound and closing on runtime stop.
import { describe, expect, it } from 'vitest';
import type { LiveChange } from '@/lib/api/live';
import { TooManyStreamsError } from '@/server/control/errors';
import { type LiveEvent, LiveFeed } from '@/server/control/live-feed';

const stats = (host: string): LiveChange => ({ kind: 'stats', provider: 'kvm2-home', host });
const owner = { owner: 'session:a', limit: 2 };

function recorder() {
  const events: LiveEvent[] = [];
  let closed = 0;
  return { events, closedCount: () => closed, subscriber: { event: (event: LiveEvent) => events.push(event), closed: () => (closed += 1) } };
}

describe('the live feed', () => {
  it('numbers changes after its boot id and hands each to every subscriber', () => {
    const feed = new LiveFeed({ boot: 'b1' });
    expect(feed.head()).toBe('b1-0');
    const first = recorder();
    const second = recorder();
    feed.subscribe(first.subscriber, owner);
    feed.subscribe(second.subscriber, { owner: 'token:x', limit: 1 });
    feed.publish(stats('h1'));
    feed.publish(stats('h2'));
    expect(first.events.map((event) => event.id)).toEqual(['b1-1', 'b1-2']);
    expect(second.events.map((event) => event.message)).toEqual([stats('h1'), stats('h2')]);
    expect(feed.head()).toBe('b1-2');
  });

  it('replays exactly the changes after the id it is given, and nothing for the head or no id', () => {
    const feed = new LiveFeed({ boot: 'b1', capacity: 10 });
    for (let host = 1; host <= 5; host += 1) feed.publish(stats(`h${host}`));
    const after2 = feed.since('b1-2');
    expect(after2.kind === 'replay' && after2.events.map((event) => event.id)).toEqual(['b1-3', 'b1-4', 'b1-5']);
    expect(feed.since('b1-5')).toEqual({ kind: 'replay', events: [] });
    expect(feed.since(undefined)).toEqual({ kind: 'replay', events: [] });
  });

  it('keeps only `capacity` changes: an id older than the oldest kept gets a reset (expired)', () => {
    const feed = new LiveFeed({ boot: 'b1', capacity: 3 });
    for (let host = 1; host <= 10; host += 1) feed.publish(stats(`h${host}`));
    // Kept: 8, 9, 10. After 7 is still complete; after 6 misses 7.
    const after7 = feed.since('b1-7');
    expect(after7.kind === 'replay' && after7.events.map((event) => event.id)).toEqual(['b1-8', 'b1-9', 'b1-10']);
    expect(feed.since('b1-6')).toEqual({ kind: 'reset', reason: 'expired' });
    expect(feed.since('b1-0')).toEqual({ kind: 'reset', reason: 'expired' });
  });

  it.each([
    ['another boot (a server restart)', 'b0-3'],
    ['an id ahead of the head', 'b1-99'],
    ['no sequence number', 'b1'],
    ['garbage', 'not an id'],
    ['an empty header', ''],
  ])('answers %s with a reset (unknown)', (_what, id) => {
    const feed = new LiveFeed({ boot: 'b1' });
    feed.publish(stats('h1'));
    expect(feed.since(id)).toEqual({ kind: 'reset', reason: 'unknown' });
  });

  it('bounds the streams per owner, and frees a place when one ends', () => {
    const feed = new LiveFeed();
    const stop1 = feed.subscribe(recorder().subscriber, owner);
    feed.subscribe(recorder().subscriber, owner);
    expect(() => feed.subscribe(recorder().subscriber, owner)).toThrow(TooManyStreamsError);
    expect(feed.streamsOf('session:a')).toBe(2);
    // Another owner is not counted against this one.
    feed.subscribe(recorder().subscriber, { owner: 'session:b', limit: 2 });
    stop1();
    stop1();
    expect(feed.streamsOf('session:a')).toBe(1);
    feed.subscribe(recorder().subscriber, owner);
    expect(feed.subscriberCount).toBe(3);
  });

  it('keeps delivering to the others when one subscriber throws', () => {
    const feed = new LiveFeed();
    const good = recorder();
    feed.subscribe(
      {
        event: () => {
          throw new Error('stream gone');
        },
        closed: () => undefined,
      },
      owner,
    );
    feed.subscribe(good.subscriber, owner);
    feed.publish(stats('h1'));
    feed.publish(stats('h2'));
    expect(good.events).toHaveLength(2);
    expect(feed.subscriberCount).toBe(1);
  });

  it('closes every subscriber on close, closes later ones at once, and publishes nothing after', () => {
    const feed = new LiveFeed();
    const open = recorder();
    feed.subscribe(open.subscriber, owner);
    feed.close();
    expect(open.closedCount()).toBe(1);
    const late = recorder();
    feed.subscribe(late.subscriber, owner);
    expect(late.closedCount()).toBe(1);
    expect(feed.publish(stats('h1'))).toBeUndefined();
    expect(open.events).toEqual([]);
    expect(feed.subscriberCount).toBe(0);
  });
});
