// The product's HTTP API as a script sees it: log in with the admin password, then call the JSON
// routes with the session cookie and the server's own Origin (mutating requests need it).
import { consoleEventSchema, type ConsoleStatusView } from '@/lib/api/console';
import { parseEventStream } from '@/lib/api/event-stream';
import type { ProxyEventView, ProxyView } from '@/lib/proxy-spec';

export class ApiError extends Error {
  readonly code = 'GUEST_API_FAILED';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export class ApiClient {
  private constructor(
    readonly url: string,
    private readonly cookie: string,
  ) {}

  static async logIn(options: { url: string; password: string }): Promise<ApiClient> {
    const response = await fetch(`${options.url}/api/auth/login`, {
      method: 'POST',
      headers: { origin: options.url, 'content-type': 'application/json' },
      body: JSON.stringify({ password: options.password }),
    });
    if (!response.ok) throw new ApiError(`login answered ${response.status}: ${await response.text()}`, response.status);
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('kvm2_session='));
    if (!cookie) throw new ApiError('login set no session cookie', response.status);
    return new ApiClient(options.url, cookie.split(';')[0] ?? '');
  }

  /** METHOD PATH with an optional JSON body; resolves with the status and the parsed answer. */
  async call(request: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; body?: unknown }): Promise<{ status: number; json: unknown }> {
    const { method, path, body } = request;
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        cookie: this.cookie,
        origin: this.url,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
  }

  /** GET PATH as a Server-Sent Events stream (e.g. the live feed, /api/events), open until SIGNAL aborts. */
  async stream(path: string, signal: AbortSignal): Promise<ReadableStream<string>> {
    const response = await fetch(`${this.url}${path}`, { headers: { cookie: this.cookie, accept: 'text/event-stream' }, signal });
    if (!response.ok || !response.body) throw new ApiError(`GET ${path} answered ${response.status}: ${await response.text()}`, response.status);
    return response.body.pipeThrough(new TextDecoderStream());
  }

  /** The proxy, or undefined once it is gone (404). */
  async proxy(name: string): Promise<ProxyView | undefined> {
    const { status, json } = await this.call({ method: 'GET', path: `/api/proxies/${name}` });
    if (status === 404) return undefined;
    if (status !== 200) throw new ApiError(`GET /api/proxies/${name} answered ${status}: ${JSON.stringify(json)}`, status);
    return json as ProxyView;
  }

  /** Newest first. */
  async events(name: string): Promise<ProxyEventView[]> {
    const { status, json } = await this.call({ method: 'GET', path: `/api/proxies/${name}/events?limit=200` });
    if (status !== 200) throw new ApiError(`GET /api/proxies/${name}/events answered ${status}`, status);
    return (json as { events: ProxyEventView[] }).events;
  }

  /** The console stream's start: the buffered output (as text) and the first status; then it hangs up. */
  async consoleStart(name: string): Promise<{ text: string; status: ConsoleStatusView }> {
    const response = await fetch(`${this.url}/api/proxies/${name}/console`, { headers: { cookie: this.cookie }, signal: AbortSignal.timeout(30_000) });
    if (!response.ok || !response.body)
      throw new ApiError(`GET /api/proxies/${name}/console answered ${response.status}: ${await response.text()}`, response.status);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let pending = '';
    let text = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new ApiError(`the console stream of ${name} ended before its status`, response.status);
        const { events, rest } = parseEventStream(pending + value);
        pending = rest;
        for (const raw of events) {
          const event = consoleEventSchema.parse(raw);
          if (event.event === 'status') return { text, status: event.data };
          text += Buffer.from(event.data.data, 'base64').toString('utf8');
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  /** Keystrokes to the Proxy's console. */
  async consoleInput(name: string, data: string): Promise<void> {
    const { status, json } = await this.call({ method: 'POST', path: `/api/proxies/${name}/console/input`, body: { data } });
    if (status !== 200) throw new ApiError(`POST /api/proxies/${name}/console/input answered ${status}: ${JSON.stringify(json)}`, status);
  }
}
