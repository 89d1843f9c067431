// A guest flooding its serial console while one page reads its console stream and another has
// stopped reading (a sleeping laptop, a background tab): the stream that stops reading is closed
// once its unread output passes the bound, its last event saying why; the reading page gets every
// byte and stays live.
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleEvent, consoleEventSchema } from '@/lib/api/console';
import { parseEventStream } from '@/lib/api/event-stream';
import { consoleQueueLimitBytes } from '@/server/http/console-api';
import { createConsoleProxy } from '@/test/support/console-proxy';
import { type ApiHarness, handlers as h, startApi } from './api-harness';

let api: ApiHarness | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const alpha = { session: true, params: { name: 'alpha' } } as const;

/** Reads a console stream in the background, keeping every event and the raw byte count. */
function collect(body: ReadableStream<Uint8Array>): { events: ConsoleEvent[]; bytes: () => number; ended: () => boolean } {
  const events: ConsoleEvent[] = [];
  let bytes = 0;
  let ended = false;
  void (async () => {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let pending = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      bytes += value.length;
      const parsed = parseEventStream(pending + decoder.decode(value, { stream: true }));
      pending = parsed.rest;
      events.push(...parsed.events.map((event) => consoleEventSchema.parse(event)));
    }
  })();
  return { events, bytes: () => bytes, ended: () => ended };
}

const outputBytes = (events: ConsoleEvent[]) =>
  events.reduce((sum, event) => sum + (event.event === 'output' ? Buffer.from(event.data.data, 'base64').length : 0), 0);

describe('a console stream nobody reads while the guest floods its console', () => {
  it('is closed with a message past its bound; a page that reads keeps every byte and stays live', async () => {
    api = await startApi();
    const device = api.fake.consoles.of(await createConsoleProxy(api));

    const sleeping = (await api.open(h.proxyConsole.GET, '/api/proxies/alpha/console', alpha)).body!;
    const reading = collect((await api.open(h.proxyConsole.GET, '/api/proxies/alpha/console', alpha)).body!);

    // Three times the bound, in 128 KiB bursts, each read by the reading page before the next.
    const chunk = Buffer.alloc(128 * 1024, 'A');
    const chunks = Math.ceil((3 * consoleQueueLimitBytes) / chunk.length);
    for (let i = 1; i <= chunks; i++) {
      device.print(chunk);
      await expect.poll(() => outputBytes(reading.events), { timeout: 10_000, interval: 5 }).toBe(i * chunk.length);
    }

    // The sleeping page wakes up: what it finds queued ends with why the stream closed, then the end.
    const woke = collect(sleeping);
    await expect.poll(() => ({ ended: woke.ended(), last: woke.events.at(-1)?.event }), { timeout: 10_000 }).toEqual({ ended: true, last: 'status' });
    expect(woke.bytes()).toBeLessThan(consoleQueueLimitBytes + 128 * 1024);
    expect(woke.events.at(-1)).toEqual({
      event: 'status',
      data: { state: 'closed', message: expect.stringMatching(/this page read the console more slowly than the VM printed .*reconnect/) },
    });
    expect(outputBytes(woke.events)).toBeLessThan(chunks * chunk.length);

    // The reading page is still live and still gets output.
    device.print('login: ');
    await expect.poll(() => outputBytes(reading.events), { timeout: 10_000 }).toBe(chunks * chunk.length + 7);
    expect(reading.events.filter((event) => event.event === 'status').map((event) => event.data)).toEqual([{ state: 'live' }]);
  }, 30_000);
});
