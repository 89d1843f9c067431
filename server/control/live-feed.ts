// The live feed behind GET /api/events: every change the control plane publishes (Proxy records,
// host health, domain lifecycle, stats samples) gets an id and goes to every subscriber, and the
// last `capacity` changes are kept so a client that reconnects with its Last-Event-ID gets what it
// missed. Ids are `<boot>-<seq>`: the boot part changes with every feed (server start), so an id
// from before a restart, or one older than the buffer, is answered with a reset (refetch all).
import { randomBytes } from 'node:crypto';
import type { LiveChange } from '@/lib/api/live';
import { TooManyStreamsError } from './errors';

export interface LiveEvent {
  id: string;
  message: LiveChange;
}

/** What a client resuming from an id gets: the changes it missed, or a reset. */
export type LiveResume = { kind: 'replay'; events: LiveEvent[] } | { kind: 'reset'; reason: 'expired' | 'unknown' };

export interface LiveSubscriber {
  event(event: LiveEvent): void;
  /** the feed closed (runtime stop): end the stream */
  closed(): void;
}

export interface LiveFeedOptions {
  /** changes kept for resuming (default 1,000) */
  capacity?: number;
  /** the id prefix of this feed (default: random) */
  boot?: string;
}

export const defaultLiveCapacity = 1_000;

export class LiveFeed {
  readonly capacity: number;
  private readonly boot: string;
  private seq = 0;
  private readonly buffer: LiveEvent[] = [];
  private readonly subscribers = new Set<LiveSubscriber>();
  /** subscribers per owner (a session, a token), for the per-owner bound */
  private readonly owners = new Map<string, number>();
  private closed = false;

  constructor(options: LiveFeedOptions = {}) {
    this.capacity = options.capacity ?? defaultLiveCapacity;
    this.boot = options.boot ?? randomBytes(6).toString('base64url');
  }

  /** The id of the latest change (`<boot>-0` before the first). */
  head(): string {
    return `${this.boot}-${this.seq}`;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  publish(message: LiveChange): LiveEvent | undefined {
    if (this.closed) return undefined;
    this.seq += 1;
    const event = { id: `${this.boot}-${this.seq}`, message };
    this.buffer.push(event);
    if (this.buffer.length > this.capacity) this.buffer.shift();
    // A subscriber that throws (a stream closing under it) must not keep the change from the others.
    for (const subscriber of [...this.subscribers]) {
      try {
        subscriber.event(event);
      } catch {
        this.subscribers.delete(subscriber);
      }
    }
    return event;
  }

  /** The changes after `lastEventId`, or a reset when they are not all kept (or the id is not this feed's). */
  since(lastEventId: string | undefined): LiveResume {
    if (lastEventId === undefined) return { kind: 'replay', events: [] };
    const match = /^(.+)-(\d+)$/.exec(lastEventId);
    const seq = Number(match?.[2]);
    if (!match || match[1] !== this.boot || !Number.isSafeInteger(seq) || seq > this.seq) return { kind: 'reset', reason: 'unknown' };
    const oldestKept = this.seq - this.buffer.length + 1;
    if (seq < oldestKept - 1) return { kind: 'reset', reason: 'expired' };
    return { kind: 'replay', events: this.buffer.slice(seq - oldestKept + 1) };
  }

  /**
   * Adds a subscriber for `owner`, or throws TooManyStreamsError when the owner has `limit`
   * already; the returned function removes it. A closed feed closes it at once.
   */
  subscribe(subscriber: LiveSubscriber, bound: { owner: string; limit: number }): () => void {
    if (this.closed) {
      subscriber.closed();
      return () => undefined;
    }
    const count = this.owners.get(bound.owner) ?? 0;
    if (count >= bound.limit) throw new TooManyStreamsError(bound.limit);
    this.owners.set(bound.owner, count + 1);
    this.subscribers.add(subscriber);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      this.subscribers.delete(subscriber);
      const left = (this.owners.get(bound.owner) ?? 1) - 1;
      if (left > 0) this.owners.set(bound.owner, left);
      else this.owners.delete(bound.owner);
    };
  }

  /** Open subscribers of `owner`. */
  streamsOf(owner: string): number {
    return this.owners.get(owner) ?? 0;
  }

  /** Ends every stream; later subscribers are closed at once and publishing does nothing. */
  close(): void {
    this.closed = true;
    this.endStreams();
  }

  /** Ends every open stream, the feed staying open (a replica that stopped leading: browsers reconnect). */
  endStreams(): void {
    const subscribers = [...this.subscribers];
    this.subscribers.clear();
    this.owners.clear();
    for (const subscriber of subscribers) subscriber.closed();
  }
}
