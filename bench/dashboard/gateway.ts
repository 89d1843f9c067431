// One origin for the browser: /api/** is answered in this process by the app's own route handlers
// (so they see the bench's runtime, whose kvm2 provider runs over in-memory hypervisors), and
// everything else (pages, scripts, styles) is passed to `next start` running the production build.
// JSON is gzipped like Next's own responses, so transfer sizes compare; event streams flow through.
// A page's live stream starts where the page rendered (live-resume.ts), but `next start` renders
// it with its own runtime's feed, which the bench's feed does not know: the stream would answer
// `reset` and the page fetch every query a second time, which a page of one server never does. So
// the gateway notes the bench feed's head as each page passes and puts it in the stream's
// ?lastEventId=, as the layout does in one process.
import { readdirSync, statSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { gzipSync } from 'node:zlib';
import { installConnectionStamp } from '@/server/http/connection';
import { liveResumePoint } from '@/server/http/live-resume';

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;
interface ApiRoute {
  pattern: RegExp;
  params: string[];
  file: string;
}

/** app/api/**\/route.ts as URL patterns, `[name]` segments as parameters. */
function apiRoutes(appDir: string): ApiRoute[] {
  const routes: ApiRoute[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry === 'route.ts') {
        const segments = relative(appDir, dir).split(sep);
        const params = segments.filter((segment) => segment.startsWith('[')).map((segment) => segment.slice(1, -1));
        const source = segments.map((segment) => (segment.startsWith('[') ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
        routes.push({ pattern: new RegExp(`^/${source}$`), params, file: path });
      }
    }
  };
  walk(join(appDir, 'api'));
  return routes;
}

async function answerApi(options: { req: IncomingMessage; res: ServerResponse; routes: ApiRoute[]; pageResumePoint: string | undefined }): Promise<void> {
  const { req, res, routes, pageResumePoint } = options;
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  if (url.pathname === '/api/events' && url.searchParams.has('lastEventId') && pageResumePoint !== undefined)
    url.searchParams.set('lastEventId', pageResumePoint);
  const route = routes.find((candidate) => candidate.pattern.test(url.pathname));
  const handlers = route ? ((await import(route.file)) as Record<string, Handler | undefined>) : undefined;
  const handler = handlers?.[req.method ?? 'GET'];
  if (!route || !handler) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    return;
  }
  const match = route.pattern.exec(url.pathname) ?? [];
  const params = Object.fromEntries(route.params.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]));
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  // The browser leaving ends the request (an event stream then lets go of the feed).
  const left = new AbortController();
  res.on('close', () => left.abort());
  const request = new Request(url, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([key, value]) =>
      value === undefined ? [] : [[key, Array.isArray(value) ? value.join(', ') : value] as [string, string]],
    ),
    signal: left.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
  const response = await handler(request, { params: Promise.resolve(params) });
  if (response.headers.get('content-type')?.startsWith('text/event-stream') && response.body) {
    // An event stream is passed on as it comes, never buffered.
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.flushHeaders();
    Readable.fromWeb(response.body as NodeReadableStream).pipe(res);
    return;
  }
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string | string[]> = Object.fromEntries(response.headers);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'])) && body.length > 1024;
  res.writeHead(response.status, { ...headers, ...(gzip ? { 'content-encoding': 'gzip', vary: 'Accept-Encoding' } : {}) });
  res.end(gzip ? gzipSync(body) : body);
}

function passToNext(options: { req: IncomingMessage; res: ServerResponse; nextPort: number }): void {
  const { req, res, nextPort } = options;
  const upstream = httpRequest({ host: '127.0.0.1', port: nextPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', (err) => res.writeHead(502).end(String(err)));
  req.pipe(upstream);
}

export async function startGateway(options: { repoDir: string; nextPort: number }): Promise<{ url: string; close: () => Promise<void> }> {
  // The route handlers learn the client and the local address from the stamp a server process puts
  // on every request (instrumentation.ts does it under `next start`).
  installConnectionStamp();
  const routes = apiRoutes(join(options.repoDir, 'app'));
  /** the bench feed's head when the latest page (a document) passed to Next */
  let pageResumePoint: string | undefined;
  const server: Server = createServer((req, res) => {
    if ((req.url ?? '').startsWith('/api/')) {
      answerApi({ req, res, routes, pageResumePoint }).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(err) }));
      });
    } else {
      if (req.headers['sec-fetch-dest'] === 'document') void liveResumePoint().then((head) => (pageResumePoint = head));
      passToNext({ req, res, nextPort: options.nextPort });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
