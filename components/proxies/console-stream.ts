// The browser side of a Proxy's console: the output stream (Server-Sent Events read with fetch,
// so an error answer is read like any other and nothing reconnects behind the page's back), and
// keystrokes and take-over by POST, through the shared API client.
import { apiRequest } from '@/components/api/client';
import { consoleEventSchema, consoleInputMaxChars, consoleInputResultSchema, consoleTakeoverSchema, type ConsoleStatusView } from '@/lib/api/console';
import { apiErrorBodySchema } from '@/lib/api/errors';
import { parseEventStream } from '@/lib/api/event-stream';

export interface ConsoleHandlers {
  /** the buffered output so far: the terminal starts over with it */
  snapshot(bytes: Uint8Array): void;
  output(bytes: Uint8Array): void;
  status(status: ConsoleStatusView): void;
}

const consolePath = (name: string) => `/api/proxies/${encodeURIComponent(name)}/console`;

const fromBase64 = (data: string): Uint8Array => Uint8Array.from(atob(data), (char) => char.charCodeAt(0));

/** Streams the console until the server ends it or `signal` aborts; throws with the server's message when refused. */
export async function streamConsole(name: string, handlers: ConsoleHandlers, signal: AbortSignal): Promise<void> {
  const response = await fetch(consolePath(name), { signal, credentials: 'same-origin', cache: 'no-store', headers: { accept: 'text/event-stream' } });
  if (!response.ok || !response.body) {
    const body = apiErrorBodySchema.safeParse(await response.json().catch(() => undefined));
    throw new Error(body.success ? body.data.error.message : `${response.status} ${response.statusText || 'the console could not be opened'}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const { events, rest } = parseEventStream(pending + value);
    pending = rest;
    for (const raw of events) {
      const parsed = consoleEventSchema.safeParse(raw);
      if (!parsed.success) continue;
      const event = parsed.data;
      if (event.event === 'status') handlers.status(event.data);
      else handlers[event.event](fromBase64(event.data.data));
    }
  }
}

/** Sends keystrokes in order, in pieces the API accepts. */
export async function sendConsoleInput(name: string, data: string): Promise<void> {
  for (let offset = 0; offset < data.length; offset += consoleInputMaxChars) {
    await apiRequest(`${consolePath(name)}/input`, consoleInputResultSchema, {
      method: 'POST',
      body: { data: data.slice(offset, offset + consoleInputMaxChars) },
    });
  }
}

export function takeOverConsole(name: string): Promise<ConsoleStatusView> {
  return apiRequest(`${consolePath(name)}/takeover`, consoleTakeoverSchema, { method: 'POST' });
}
