// Image URLs that redirect (mirror redirectors, release assets): followed for the HEAD precheck and
// the GET alike, across hosts, at most maxRedirects times; a loop, a longer chain or a redirect
// without a usable Location is permanent and names the chain, redacted. The final response is
// judged by the usual rules.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorClassOf } from '@/server/providers/errors';
import { imageContentLength, maxRedirects, openImageStream } from '@/server/providers/kvm2/image-fetch';
import { drain, listenOnLoopback, type LoopbackServer } from './http-fixture';

const image = randomBytes(64 * 1024);
const seen: string[] = [];
let mirror: LoopbackServer;
let other: LoopbackServer;
let base: string;
let otherBase: string;

const redirect = (res: ServerResponse, status: number, location?: string): void => void res.writeHead(status, location === undefined ? {} : { location }).end();

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  seen.push(`${req.method} ${url.pathname}`);
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (chain) return redirect(res, 302, `/chain/${Number(chain[1]) + 1}`);
  switch (url.pathname) {
    case '/image':
      return void res.writeHead(200, { 'content-length': image.length }).end(req.method === 'HEAD' ? undefined : image);
    case '/head-405':
      if (req.method === 'HEAD') return void res.writeHead(405).end();
      return void res.writeHead(200, { 'content-length': image.length }).end(image);
    case '/once':
      return redirect(res, 302, '/image');
    case '/twice':
      return redirect(res, 301, `${base}/once`);
    case '/see-other':
      return redirect(res, 303, '/image');
    case '/temporary':
      return redirect(res, 307, '/image');
    case '/permanent':
      return redirect(res, 308, '/image');
    case '/cross':
      return redirect(res, 307, `${otherBase}/image`);
    case '/cross-405':
      return redirect(res, 302, `${otherBase}/head-405`);
    case '/loop-a':
      return redirect(res, 302, '/loop-b');
    case '/loop-b':
      return redirect(res, 302, '/loop-a');
    case '/to-404':
      return redirect(res, 302, '/404');
    case '/to-503':
      return redirect(res, 302, '/503');
    case '/no-location':
      return redirect(res, 302);
    case '/to-ftp':
      return redirect(res, 302, 'ftp://mirror.example/image.qcow2');
    case '/signed':
      return redirect(res, 302, `http://user:hunter2@127.0.0.1:${new URL(base).port}/signed?X-Signature=s3cr3t`);
    case '/404':
      return void res.writeHead(404).end();
    case '/503':
      return void res.writeHead(503).end();
    default:
      return void res.writeHead(404).end();
  }
}

beforeAll(async () => {
  mirror = await listenOnLoopback(route);
  other = await listenOnLoopback(route);
  base = mirror.url;
  otherBase = other.url;
});
afterAll(async () => {
  await mirror.close();
  await other.close();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err as Error,
  );

describe('image URLs that redirect', () => {
  it.each(['/once', '/twice', '/see-other', '/temporary', '/permanent', '/cross'])('GET follows %s to the image', async (path) => {
    const stream = await openImageStream(`${base}${path}`, { deadlineMs: 5000 });
    expect(stream.contentLength).toBe(image.length);
    expect(await drain(stream.body)).toBe(image.length);
    expect(stream.sourceError()).toBeUndefined();
  });

  it.each(['/once', '/twice', '/cross'])('the HEAD precheck follows %s', async (path) => {
    seen.length = 0;
    await expect(imageContentLength(`${base}${path}`, { timeoutMs: 5000 })).resolves.toBe(image.length);
    expect(seen.every((line) => line.startsWith('HEAD '))).toBe(true);
  });

  it('falls back to a GET, itself following the redirect, when HEAD at the end of the chain answers 405', async () => {
    seen.length = 0;
    await expect(imageContentLength(`${base}/cross-405`, { timeoutMs: 5000 })).resolves.toBe(image.length);
    expect(seen).toEqual(['HEAD /cross-405', 'HEAD /head-405', 'GET /cross-405', 'GET /head-405']);
  });

  it.each([
    ['/to-404', 'permanent', /answered HTTP 404/],
    ['/to-503', 'transient', /answered HTTP 503/],
  ])('judges the final response of %s by the usual rules (%s)', async (path, errorClass, message) => {
    for (const attempt of [openImageStream(`${base}${path}`, { deadlineMs: 5000 }), imageContentLength(`${base}${path}`, { timeoutMs: 5000 })]) {
      const error = await failure(attempt);
      expect(errorClassOf(error)).toBe(errorClass);
      expect(error?.message).toMatch(message);
    }
  });

  it('refuses a loop permanently, naming the chain', async () => {
    for (const attempt of [openImageStream(`${base}/loop-a`, { deadlineMs: 5000 }), imageContentLength(`${base}/loop-a`, { timeoutMs: 5000 })]) {
      const error = await failure(attempt);
      expect(errorClassOf(error)).toBe('permanent');
      expect(error?.message).toBe(`image URL redirects in a loop: ${base}/loop-a -> ${base}/loop-b -> ${base}/loop-a`);
    }
  });

  it(`refuses a chain of more than ${maxRedirects} redirects permanently, naming it`, async () => {
    seen.length = 0;
    const error = await failure(openImageStream(`${base}/chain/0`, { deadlineMs: 5000 }));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toContain(`redirected more than ${maxRedirects} times: ${base}/chain/0 -> ${base}/chain/1`);
    expect(error?.message).toContain(`${base}/chain/${maxRedirects}`);
    expect(seen).toHaveLength(maxRedirects + 1);
  });

  it.each(['/no-location', '/to-ftp'])('refuses a redirect without a usable http(s) Location (%s) permanently', async (path) => {
    const error = await failure(openImageStream(`${base}${path}`, { deadlineMs: 5000 }));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toMatch(/answered HTTP 302 without a usable http\(s\) Location/);
  });

  it('never writes the credentials or the query of a URL in the chain into the error', async () => {
    const error = await failure(openImageStream(`http://admin:pa55@127.0.0.1:${new URL(base).port}/signed?token=abc`, { deadlineMs: 5000 }));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toBe(`image URL redirects in a loop: ${base}/signed -> ${base}/signed -> ${base}/signed`);
    for (const secret of ['admin', 'pa55', 'token', 'abc', 'hunter2', 'X-Signature', 's3cr3t']) expect(error?.message).not.toContain(secret);
  });
});
