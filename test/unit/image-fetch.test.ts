import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorClassOf } from '@/server/providers/errors';
import { imageContentLength, openImageStream } from '@/server/providers/kvm2/image-fetch';
import { drain, listenOnLoopback, type LoopbackServer } from './http-fixture';

const image = randomBytes(256 * 1024);
const imageDigest = createHash('sha256').update(image).digest('hex');
const seen: { method: string; path: string; encoding?: string }[] = [];

const routes: Record<string, (res: ServerResponse, method: string) => void> = {
  '/ok': (res) => res.writeHead(200, { 'content-length': image.length }).end(image),
  '/chunked': (res) => {
    res.writeHead(200);
    res.write(image.subarray(0, 10));
    res.end(image.subarray(10));
  },
  '/empty': (res) => res.writeHead(200, { 'content-length': 0 }).end(),
  '/404': (res) => res.writeHead(404).end('no'),
  '/403': (res) => res.writeHead(403).end('no'),
  '/429': (res) => res.writeHead(429).end('slow down'),
  '/503': (res) => res.writeHead(503).end('busy'),
  '/head-405': (res, method) => (method === 'HEAD' ? res.writeHead(405).end() : res.writeHead(200, { 'content-length': image.length }).end(image)),
  '/truncated': (res) => {
    res.writeHead(200, { 'content-length': image.length });
    res.write(image.subarray(0, image.length / 2), () => res.destroy());
  },
  '/stall': (res) => {
    res.writeHead(200, { 'content-length': image.length });
    res.write(image.subarray(0, 1024));
  },
};

let server: LoopbackServer;
let base: string;

beforeAll(async () => {
  server = await listenOnLoopback((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', encoding: req.headers['accept-encoding'] });
    (routes[req.url ?? ''] ?? ((r) => r.writeHead(404).end()))(res, req.method ?? 'GET');
  });
  base = server.url;
});
afterAll(() => server.close());

describe('openImageStream', () => {
  it('streams the image with its length and digest, asking for identity encoding', async () => {
    let progress = 0;
    const stream = await openImageStream(`${base}/ok`, { deadlineMs: 5000, onBytes: (n) => (progress += n) });
    expect(stream.contentLength).toBe(image.length);
    expect(await drain(stream.body)).toBe(image.length);
    expect(stream.sha256()).toBe(imageDigest);
    expect(stream.sourceError()).toBeUndefined();
    expect(progress).toBe(image.length);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', path: '/ok', encoding: 'identity' });
  });

  it.each([
    ['/chunked', 'permanent', /sent no usable Content-Length \(none\)/],
    ['/empty', 'permanent', /sent no usable Content-Length \("0"\)/],
    ['/404', 'permanent', /answered HTTP 404/],
    ['/403', 'permanent', /answered HTTP 403/],
    ['/429', 'transient', /answered HTTP 429/],
    ['/503', 'transient', /answered HTTP 503/],
  ])('classifies %s as %s, naming the URL', async (path, errorClass, message) => {
    const error = await openImageStream(`${base}${path}`, { deadlineMs: 5000 }).catch((err: unknown) => err);
    expect(errorClassOf(error)).toBe(errorClass);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(`${base}${path}`);
  });

  it('ends a body that breaks half way cleanly and keeps the error out of band', async () => {
    const stream = await openImageStream(`${base}/truncated`, { deadlineMs: 5000 });
    const read = await drain(stream.body);
    expect(read).toBeLessThan(image.length);
    expect(stream.bytesRead()).toBe(read);
    expect(stream.sourceError()).toBeInstanceOf(Error);
  });

  it('ends a stalled body at its own deadline, as a transient error kept out of band', async () => {
    const stream = await openImageStream(`${base}/stall`, { deadlineMs: 300 });
    expect(await drain(stream.body)).toBe(1024);
    expect(errorClassOf(stream.sourceError())).toBe('transient');
    expect(String((stream.sourceError() as Error).message)).toMatch(/deadline/);
  });

  it('ends the body when the caller aborts', async () => {
    const controller = new AbortController();
    const stream = await openImageStream(`${base}/stall`, { deadlineMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('reconcile cancelled')), 50);
    expect(await drain(stream.body)).toBe(1024);
    expect((stream.sourceError() as Error).message).toBe('reconcile cancelled');
  });

  it('refuses a connection error as transient', async () => {
    const error = await openImageStream('http://127.0.0.1:1/none', { deadlineMs: 5000 }).catch((err: unknown) => err);
    expect(errorClassOf(error)).toBe('transient');
  });
});

describe('imageContentLength', () => {
  it('takes the length from HEAD', async () => {
    await expect(imageContentLength(`${base}/ok`, { timeoutMs: 5000 })).resolves.toBe(image.length);
    expect(seen.at(-1)).toMatchObject({ method: 'HEAD', path: '/ok' });
  });

  it('falls back to a GET closed at once when HEAD answers 405', async () => {
    await expect(imageContentLength(`${base}/head-405`, { timeoutMs: 5000 })).resolves.toBe(image.length);
    expect(seen.slice(-2).map((s) => s.method)).toEqual(['HEAD', 'GET']);
  });

  it('counts the GET status when HEAD fails too', async () => {
    const error = await imageContentLength(`${base}/404`, { timeoutMs: 5000 }).catch((err: unknown) => err);
    expect(errorClassOf(error)).toBe('permanent');
  });
});
