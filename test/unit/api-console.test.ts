// The console routes through the real route handlers over the process runtime (a fake provider's
// console devices): the stream starts with the buffer and the status, then live output; it ends
// when the session logs out; a Proxy without a VM or a missing one is refused before any stream;
// keystrokes for a console another client holds are ERR_CONSOLE_BUSY, malformed ones name `data`.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { liveHeartbeatMs } from '@/lib/api/live';
import { parseEventStream } from '@/lib/api/event-stream';
import { createConsoleProxy } from '@/test/support/console-proxy';
import { type ApiHarness, handlers as h, startApi } from './api-harness';

let api: ApiHarness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await api?.close();
  api = undefined;
});

const alpha = { session: true, params: { name: 'alpha' } } as const;

async function startWithProxy(): Promise<{ api: ApiHarness; providerID: string }> {
  const started = await startApi();
  api = started;
  return { api: started, providerID: await createConsoleProxy(started) };
}

async function readEvents(reader: ReadableStreamDefaultReader<Uint8Array>, until: (text: string) => boolean): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (!until(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe('GET /api/proxies/{name}/console', () => {
  it('sends the buffer and the status first, then live output as base64 chunks', async () => {
    const { api, providerID } = await startWithProxy();
    api.fake.consoles.of(providerID).print('Booting…\r\n');
    await expect.poll(() => api.runtime.services.consoles.consoleLog('alpha')).toBe('Booting…\r\n');
    const response = await api.open(h.proxyConsole.GET, '/api/proxies/alpha/console', alpha);
    const reader = response.body!.getReader();
    const start = await readEvents(reader, (text) => text.includes('event: status'));
    expect(parseEventStream(start).events).toEqual([
      { event: 'snapshot', data: { data: Buffer.from('Booting…\r\n').toString('base64') } },
      { event: 'status', data: { state: 'live' } },
    ]);
    api.fake.consoles.of(providerID).print('login: ');
    const live = await readEvents(reader, (text) => text.includes('event: output'));
    expect(parseEventStream(live).events).toEqual([{ event: 'output', data: { data: Buffer.from('login: ').toString('base64') } }]);
    await reader.cancel();
  });

  it('ends at the next keepalive once the session has logged out', async () => {
    const { api } = await startWithProxy();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const reader = (await api.open(h.proxyConsole.GET, '/api/proxies/alpha/console', alpha)).body!.getReader();
    await readEvents(reader, (text) => text.includes('event: status'));
    vi.advanceTimersByTime(liveHeartbeatMs);
    expect(await readEvents(reader, (text) => text.includes(': keepalive'))).toBe(': keepalive\n\n');
    expect((await api.call(h.logout.POST, '/api/auth/logout', 'POST', { session: true })).status).toBe(200);
    vi.advanceTimersByTime(liveHeartbeatMs);
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('refuses a Static Proxy (422) and a missing one (404) before opening anything', async () => {
    api = await startApi();
    await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: true, body: { name: 'static', mode: 'Static', address: '192.0.2.10' } });
    const staticAnswer = await api.call(h.proxyConsole.GET, '/api/proxies/static/console', 'GET', { session: true, params: { name: 'static' } });
    expect(staticAnswer.status).toBe(422);
    expect(staticAnswer.json.error).toMatchObject({ code: 'ERR_UNSUPPORTED_OPERATION', message: 'Proxy "static" is Static: it has no VM, so no console' });
    const missing = await api.call(h.proxyConsoleTakeover.POST, '/api/proxies/nobody/console/takeover', 'POST', { session: true, params: { name: 'nobody' } });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('ERR_PROXY_NOT_FOUND');
    expect(api.runtime.services.consoles.status('nobody')).toEqual({ state: 'closed', message: 'not opened yet' });
  });
});

describe('POST /api/proxies/{name}/console/input', () => {
  it('is ERR_CONSOLE_BUSY (409) while another client holds the console, naming its host', async () => {
    const { api, providerID } = await startWithProxy();
    api.fake.consoles.of(providerID).holdElsewhere();
    await api.call(h.proxyConsole.GET, '/api/proxies/alpha/console', 'GET', alpha);
    await expect.poll(() => api.runtime.services.consoles.status('alpha').state).toBe('busy');
    const typed = await api.call(h.proxyConsoleInput.POST, '/api/proxies/alpha/console/input', 'POST', { ...alpha, body: { data: 'x' } });
    expect(typed.status).toBe(409);
    expect(typed.json.error.code).toBe('ERR_CONSOLE_BUSY');
    expect(typed.json.error.message).toMatch(/on host host-a .*"take over" disconnects that client/);
    expect(api.fake.consoles.of(providerID).input).toEqual([]);
  });

  it.each([
    { body: {}, message: /data/ },
    { body: { data: '' }, message: /data: must not be empty/ },
    { body: { data: 'x'.repeat(4097) }, message: /data: at most 4096 characters per request/ },
    { body: { data: 'x', extra: 1 }, message: /extra/ },
  ])('refuses $body with 400 naming the field, sending nothing', async ({ body, message }) => {
    const { api, providerID } = await startWithProxy();
    const typed = await api.call(h.proxyConsoleInput.POST, '/api/proxies/alpha/console/input', 'POST', { ...alpha, body });
    expect(typed.status).toBe(400);
    expect(typed.json.error.message).toMatch(message);
    expect(api.fake.consoles.of(providerID).input).toEqual([]);
  });
});
