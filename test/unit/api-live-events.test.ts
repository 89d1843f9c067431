// GET /api/events through the real route handler over the process runtime: who may listen, what
// a connection starts with, Last-Event-ID resume and reset, changes as they happen, the heartbeat,
// and every way a stream ends (the client leaves, logout, runtime stop, too many per session).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { liveHeartbeatMs } from '@/lib/api/live';
import { streamsPerOwner } from '@/server/http/live-stream';
import { type ApiHarness, eventData, handlers as h, startApi } from './api-harness';

let api: ApiHarness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await api?.close();
  api = undefined;
});

/** Reads an open event stream frame by frame. */
function streamReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    /** the text received so far, once `predicate` holds for it (or the stream ended) */
    async until(predicate: (text: string) => boolean): Promise<string> {
      while (!predicate(text)) {
        const { done, value } = await reader.read();
        if (done) return text;
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
    async ended(): Promise<boolean> {
      for (;;) {
        const { done } = await reader.read();
        if (done) return true;
      }
    },
    cancel: () => reader.cancel(),
  };
}

const hasReady = (text: string) => text.includes('"kind":"ready"');

describe('GET /api/events', () => {
  it('refuses a request without a session or token, and a forged one, with 401 and opens no stream', async () => {
    api = await startApi();
    for (const credentials of [{}, { session: 'forged.cookie' }, { bearer: 'kvm2_forged' }]) {
      const answer = await api.call(h.liveEvents.GET, '/api/events', 'GET', credentials);
      expect(answer.status).toBe(401);
      expect(answer.json.error.code).toBe('ERR_UNAUTHENTICATED');
    }
    expect(api.runtime.services.live.subscriberCount).toBe(0);
  });

  it('is served by the leading replica only: another answers 503 and opens no stream, and a step-down ends the open ones', async () => {
    api = await startApi();
    const open = await api.open(h.liveEvents.GET, '/api/events', { session: true });
    const stream = streamReader(open);
    await stream.until(hasReady);
    vi.spyOn(api.runtime.services.cluster, 'isLeader').mockReturnValue(false);
    const refused = await api.call(h.liveEvents.GET, '/api/events', 'GET', { session: true });
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe('ERR_RESOURCE_UNAVAILABLE');
    expect(api.runtime.services.live.subscriberCount).toBe(1);
    api.runtime.services.live.endStreams();
    expect(await stream.ended()).toBe(true);
    expect(api.runtime.services.live.subscriberCount).toBe(0);
  });

  it('starts with the reconnect delay and `ready` carrying the feed head as its id, then sends changes as they happen', async () => {
    api = await startApi();
    const response = await api.open(h.liveEvents.GET, '/api/events', { session: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store, no-transform');
    const stream = streamReader(response);
    const opening = await stream.until(hasReady);
    expect(opening).toMatch(/^retry: \d+\n\n/);
    expect(opening).toContain(`id: ${api.runtime.services.live.head()}\ndata: {"kind":"ready","resumed":false}\n\n`);

    await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: true, body: { name: 'alpha', mode: 'Static', address: '192.0.2.10' } });
    const text = await stream.until((received) => received.includes('"phase":"Running"'));
    const proxies = eventData(text).filter((message: any) => message.kind === 'proxy' && message.name === 'alpha') as any[];
    expect(proxies[0].proxy).toMatchObject({ name: 'alpha', status: { phase: 'Pending' } });
    expect(proxies.at(-1).proxy.status.phase).toBe('Running');
    await stream.cancel();
  });

  it('replays what was missed after Last-Event-ID, then `ready` resumed', async () => {
    api = await startApi();
    const from = api.runtime.services.live.head();
    api.runtime.services.live.publish({ kind: 'stats', provider: 'kvm2-home', host: 'hv-1' });
    api.runtime.services.live.publish({ kind: 'stats', provider: 'kvm2-home', host: 'hv-1', proxy: 'alpha' });
    const answer = await api.call(h.liveEvents.GET, '/api/events', 'GET', { session: true, headers: { 'last-event-id': from } });
    expect(answer.json).toEqual([
      { kind: 'stats', provider: 'kvm2-home', host: 'hv-1' },
      { kind: 'stats', provider: 'kvm2-home', host: 'hv-1', proxy: 'alpha' },
      { kind: 'ready', resumed: true },
    ]);
  });

  it('resumes from ?lastEventId= as well (a stream the browser opens anew cannot send the header), and refuses a malformed one', async () => {
    api = await startApi();
    const from = api.runtime.services.live.head();
    api.runtime.services.live.publish({ kind: 'stats', provider: 'kvm2-home', host: 'hv-1' });
    const answer = await api.call(h.liveEvents.GET, `/api/events?lastEventId=${encodeURIComponent(from)}`, 'GET', { session: true });
    expect(answer.json).toEqual([
      { kind: 'stats', provider: 'kvm2-home', host: 'hv-1' },
      { kind: 'ready', resumed: true },
    ]);
    const twice = await api.call(h.liveEvents.GET, '/api/events?lastEventId=a&lastEventId=b', 'GET', { session: true });
    expect(twice.status).toBe(400);
    expect(twice.json.error.fields).toEqual([{ path: 'lastEventId', message: expect.stringContaining('once') }]);
  });

  it('answers a Last-Event-ID it cannot resume from (another server run) with `reset` before `ready`', async () => {
    api = await startApi();
    const answer = await api.call(h.liveEvents.GET, '/api/events', 'GET', { session: true, headers: { 'last-event-id': 'previous-run-42' } });
    expect(answer.json).toEqual([
      { kind: 'reset', reason: 'unknown' },
      { kind: 'ready', resumed: false },
    ]);
  });

  it('sends a heartbeat comment every 15 s', async () => {
    api = await startApi();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stream = streamReader(await api.open(h.liveEvents.GET, '/api/events', { session: true }));
    await stream.until(hasReady);
    vi.advanceTimersByTime(liveHeartbeatMs - 1);
    vi.advanceTimersByTime(1);
    const text = await stream.until((received) => received.includes(': heartbeat'));
    expect(text.match(/: heartbeat\n\n/g)).toHaveLength(1);
    vi.advanceTimersByTime(liveHeartbeatMs);
    expect((await stream.until((received) => received.match(/: heartbeat/g)?.length === 2)).match(/: heartbeat/g)).toHaveLength(2);
    await stream.cancel();
  });

  it('lets go of the feed when the client cancels the stream or its request aborts', async () => {
    api = await startApi();
    const cancelled = streamReader(await api.open(h.liveEvents.GET, '/api/events', { session: true }));
    const aborted = new AbortController();
    await streamReader(await api.open(h.liveEvents.GET, '/api/events', { session: true, signal: aborted.signal })).until(hasReady);
    expect(api.runtime.services.live.subscriberCount).toBe(2);
    await cancelled.cancel();
    expect(api.runtime.services.live.subscriberCount).toBe(1);
    aborted.abort();
    expect(api.runtime.services.live.subscriberCount).toBe(0);
  });

  it(`allows ${streamsPerOwner} streams per session (429 past that), and another session its own`, async () => {
    api = await startApi();
    const open = await Promise.all(Array.from({ length: streamsPerOwner }, () => api!.open(h.liveEvents.GET, '/api/events', { session: true })));
    const refused = await api.call(h.liveEvents.GET, '/api/events', 'GET', { session: true });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('ERR_TOO_MANY_STREAMS');
    expect(refused.headers.get('retry-after')).toBe('30');
    const other = await api.logIn();
    expect((await api.call(h.liveEvents.GET, '/api/events', 'GET', { session: other })).status).toBe(200);
    await open[0]!.body!.cancel();
    expect((await api.call(h.liveEvents.GET, '/api/events', 'GET', { session: true })).status).toBe(200);
    await Promise.all(open.slice(1).map((response) => response.body!.cancel()));
  });

  it('ends the stream of a client that stops reading once megabytes queue up, keeping what was queued for it', async () => {
    api = await startApi();
    const stream = streamReader(await api.open(h.liveEvents.GET, '/api/events', { session: true }));
    const host = 'h'.repeat(64 * 1024);
    for (let index = 0; index < 100 && api.runtime.services.live.subscriberCount > 0; index += 1)
      api.runtime.services.live.publish({ kind: 'stats', provider: 'kvm2-home', host });
    expect(api.runtime.services.live.subscriberCount).toBe(0);
    const text = await stream.until(() => false);
    expect(text.match(/"kind":"stats"/g)!.length).toBeGreaterThan(32);
  });

  it('ends the stream at the next heartbeat once its session is logged out', async () => {
    api = await startApi();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stream = streamReader(await api.open(h.liveEvents.GET, '/api/events', { session: true }));
    await stream.until(hasReady);
    expect((await api.call(h.logout.POST, '/api/auth/logout', 'POST', { session: true })).status).toBe(200);
    vi.advanceTimersByTime(liveHeartbeatMs);
    expect(await stream.ended()).toBe(true);
    expect(api.runtime.services.live.subscriberCount).toBe(0);
  });

  it('ends every stream when the runtime stops', async () => {
    api = await startApi();
    const stream = streamReader(await api.open(h.liveEvents.GET, '/api/events', { session: true }));
    await stream.until(hasReady);
    const ended = stream.ended();
    await api.close();
    api = undefined;
    expect(await ended).toBe(true);
  });
});
