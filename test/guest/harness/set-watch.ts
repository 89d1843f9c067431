// A ProxySet's members as the live feed (GET /api/events) reports them: the server publishes every
// write to a Proxy's record as its new view, so following the feed sees each Ready flip, each new
// member and each deletion as it happens, where a poll would sample between them and could miss a
// short drop. Each change of a member makes one sample (how many members, how many Ready, which
// are booting); the test reads the samples of the window it cares about.
import { liveMessageSchema } from '@/lib/api/live';
import { parseEventStream } from '@/lib/api/event-stream';
import { proxySetLabel } from '@/lib/api/proxyset-spec';
import type { ProxyView } from '@/lib/proxy-spec';
import type { ApiClient } from './api-client';

export class SetWatchError extends Error {
  readonly code = 'GUEST_SET_WATCH';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SetWatchError';
  }
}

export interface SetSample {
  atMs: number;
  /** members not being deleted */
  members: number;
  /** members in phase Ready (a member being deleted is in phase Deleting) */
  ready: number;
  /** names of the members not being deleted that are not Ready */
  notReady: string[];
}

/** A member when first seen and when first seen Ready (ms, performance.now()). */
export interface MemberHistory {
  name: string;
  host: string | undefined;
  createdAt: string;
  firstSeenMs: number;
  readyAtMs?: number;
  deletingAtMs?: number;
  goneAtMs?: number;
}

export class SetWatch {
  /** the current view of every member still there (being deleted included) */
  readonly members = new Map<string, ProxyView>();
  readonly history = new Map<string, MemberHistory>();
  readonly samples: SetSample[] = [];
  /** set when the feed ended or said changes were lost: the samples may have a gap */
  failure: SetWatchError | undefined;
  private readonly abort = new AbortController();
  private readonly waiters = new Set<() => void>();
  private closed = false;

  private constructor(
    private readonly api: ApiClient,
    readonly set: string,
  ) {}

  /** Follows the live feed; resolves once the feed is live (its `ready` message), before the set's members exist. */
  static async open(api: ApiClient, set: string): Promise<SetWatch> {
    const watch = new SetWatch(api, set);
    const stream = await api.stream('/api/events', watch.abort.signal);
    await new Promise<void>((resolve, reject) => {
      void watch.read(stream, resolve).catch((err: unknown) => {
        if (watch.closed) return;
        watch.fail(new SetWatchError(`the live feed failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
        reject(watch.failure);
      });
    });
    return watch;
  }

  private async read(stream: ReadableStream<string>, onReady: () => void): Promise<void> {
    const reader = stream.getReader();
    let pending = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        if (!this.closed) this.fail(new SetWatchError('the live feed ended while the set was watched: a drop in Ready could have been missed'));
        return;
      }
      const { events, rest } = parseEventStream(pending + value);
      pending = rest;
      for (const raw of events) {
        const message = liveMessageSchema.parse(raw.data);
        if (message.kind === 'ready') onReady();
        else if (message.kind === 'reset') this.fail(new SetWatchError(`the live feed lost changes (reset: ${message.reason})`));
        else if (message.kind === 'proxy') this.change(message.name, message.proxy);
      }
    }
  }

  private fail(error: SetWatchError): void {
    this.failure ??= error;
    this.notify();
  }

  private change(name: string, view: ProxyView | null): void {
    const isMember = view ? view.labels[proxySetLabel] === this.set : this.members.has(name);
    if (!isMember) return;
    const now = performance.now();
    if (view) {
      this.members.set(name, view);
      const history = this.history.get(name) ?? { name, host: view.placement?.zone, createdAt: view.createdAt, firstSeenMs: now };
      if (view.status.phase === 'Ready') history.readyAtMs ??= now;
      if (view.deletionRequestedAt) history.deletingAtMs ??= now;
      this.history.set(name, history);
    } else {
      this.members.delete(name);
      const history = this.history.get(name);
      if (history) history.goneAtMs ??= now;
    }
    const live = [...this.members.values()].filter((member) => !member.deletionRequestedAt);
    this.samples.push({
      atMs: now,
      members: live.length,
      ready: live.filter((member) => member.status.phase === 'Ready').length,
      notReady: live.filter((member) => member.status.phase !== 'Ready').map((member) => member.name),
    });
    this.notify();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** What the members are now, for messages. */
  describe(): string {
    return [...this.members.values()].map((member) => `${member.name}@${member.placement?.zone ?? '?'}: ${member.status.phase}`).join(', ') || 'no members';
  }

  /** Resolves once CONDITION holds after a change (or now); rejects after TIMEOUTMS or when the feed fails. */
  until(what: string, condition: (watch: SetWatch) => boolean, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.failure) return finish(this.failure);
        if (condition(this)) finish();
      };
      const timer = setTimeout(() => finish(new SetWatchError(`no ${what} within ${timeoutMs / 1000} s; members: ${this.describe()}`)), timeoutMs);
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        if (error) reject(error);
        else resolve();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Members not being deleted, and those of them that are Ready. */
  live(): ProxyView[] {
    return [...this.members.values()].filter((member) => !member.deletionRequestedAt);
  }

  ready(): ProxyView[] {
    return this.live().filter((member) => member.status.phase === 'Ready');
  }

  close(): void {
    this.closed = true;
    this.abort.abort();
  }
}
