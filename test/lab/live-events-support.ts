// Shared by the lab's live-events test and bench/event-latency.ts: GET /api/events opened through
// the route handler of the process runtime (startLabApi), every message kept with the time it
// arrived, and a wait for the first message after a moment that matches.
import { type LiveMessage, liveMessageSchema } from '@/lib/api/live';
import { handlers as h } from '@/test/unit/api-harness';
import type { LabApi } from './api-lab-support';

export interface ReceivedMessage {
  /** Date.now() when its frame was read */
  at: number;
  message: LiveMessage;
}

export interface LiveWatch {
  received: ReceivedMessage[];
  /** the first message that arrived at or after `sinceMs` and matches, once there is one */
  next(options: { sinceMs: number; matches: (message: LiveMessage) => boolean; timeoutMs: number; what: string }): Promise<ReceivedMessage>;
  close(): Promise<void>;
}

export async function watchLiveEvents(api: LabApi): Promise<LiveWatch> {
  const response = await api.open(h.liveEvents.GET, '/api/events', { session: api.session });
  if (response.status !== 200 || !response.body) throw new Error(`GET /api/events answered ${response.status}: ${await response.text()}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const received: ReceivedMessage[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  void (async () => {
    let buffered = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      const at = Date.now();
      buffered += decoder.decode(value, { stream: true });
      const frames = buffered.split('\n\n');
      buffered = frames.pop() ?? '';
      for (const frame of frames) {
        const data = frame.split('\n').find((line) => line.startsWith('data: '));
        if (data) received.push({ at, message: liveMessageSchema.parse(JSON.parse(data.slice('data: '.length))) });
      }
      for (const wake of waiters) wake();
    }
    ended = true;
    for (const wake of waiters) wake();
  })();

  return {
    received,
    next({ sinceMs, matches, timeoutMs, what }) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find((entry) => entry.at >= sinceMs && matches(entry.message));
          if (found) finish(() => resolve(found));
          else if (ended) finish(() => reject(new Error(`the event stream ended before ${what}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${what} on /api/events within ${timeoutMs} ms`))), timeoutMs);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    close: () => reader.cancel(),
  };
}
