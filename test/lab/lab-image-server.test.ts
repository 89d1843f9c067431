// The lab's image server answers each path the way the kvm2 image fetch will meet it in the wild.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Lab, imageServerStats, loadLab, resetImageServerStats } from './harness/lab';

let lab: Lab;
let image: Buffer;
beforeAll(() => {
  lab = loadLab();
  image = readFileSync(lab.imageServer.image.path);
});

const url = (path: string) => `${lab.imageServer.url}${path}`;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bodyOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('lab image server', () => {
  it('serves the lab image with its Content-Length and digest', async () => {
    const res = await fetch(url('/images/lab.qcow2'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(lab.imageServer.image.size));
    const body = await bodyOf(res);
    expect(sha256(body)).toBe(lab.imageServer.image.sha256);
    expect(body.subarray(0, 4).toString('latin1')).toBe('QFI\xfb'); // qcow2 magic
  });

  it('answers HEAD on the lab image with the length and no body', async () => {
    const res = await fetch(url('/images/lab.qcow2'), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(lab.imageServer.image.size));
    expect((await bodyOf(res)).length).toBe(0);
  });

  it('serves the chunked variant without Content-Length', async () => {
    const res = await fetch(url('/variants/chunked.qcow2'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(sha256(await bodyOf(res))).toBe(lab.imageServer.image.sha256);
  });

  it('serves the empty variant with Content-Length 0', async () => {
    const res = await fetch(url('/variants/empty.qcow2'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
    expect((await bodyOf(res)).length).toBe(0);
  });

  it.each([
    ['/variants/404', 404, null],
    ['/variants/429', 429, '1'],
    ['/variants/503', 503, '1'],
    ['/images/no-such-image.qcow2', 404, null],
  ])('answers %s with %i', async (path, status, retryAfter) => {
    const res = await fetch(url(path));
    expect(res.status).toBe(status);
    expect(res.headers.get('retry-after')).toBe(retryAfter);
    await res.arrayBuffer();
  });

  it('answers HEAD with 405 on the head-405 variant and serves GET', async () => {
    const head = await fetch(url('/variants/head-405.qcow2'), { method: 'HEAD' });
    expect(head.status).toBe(405);
    const get = await fetch(url('/variants/head-405.qcow2'));
    expect(get.status).toBe(200);
    expect(sha256(await bodyOf(get))).toBe(lab.imageServer.image.sha256);
  });

  it('announces the full length on the truncated variant, then drops the body half way', async () => {
    const res = await fetch(url('/variants/truncated.qcow2'));
    expect(res.headers.get('content-length')).toBe(String(image.length));
    let received = 0;
    const reader = res.body?.getReader();
    const reading = (async () => {
      for (;;) {
        const { done, value } = (await reader?.read()) ?? { done: true, value: undefined };
        if (done) return;
        received += value.length;
      }
    })();
    await expect(reading).rejects.toThrow();
    expect(received).toBeLessThan(image.length);
    expect(received).toBeGreaterThan(0);
  });

  it('drips the slow variant: full length announced, one small piece first', async () => {
    const controller = new AbortController();
    const res = await fetch(url('/variants/slow.qcow2'), { signal: controller.signal });
    expect(res.headers.get('content-length')).toBe(String(image.length));
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(first?.value?.length).toBeGreaterThan(0);
    expect(first?.value?.length).toBeLessThanOrEqual(4096);
    controller.abort();
    await reader?.cancel().catch(() => undefined);
  });

  it('delivers the whole image on the slow variant when asked to drip faster', async () => {
    const res = await fetch(url('/variants/slow.qcow2?chunk=65536&intervalMs=5'));
    expect(sha256(await bodyOf(res))).toBe(lab.imageServer.image.sha256);
  });

  it('counts hits per path and per method, and resets the counts', async () => {
    await resetImageServerStats(lab);
    await (await fetch(url('/images/lab.qcow2'))).arrayBuffer();
    await (await fetch(url('/images/lab.qcow2'), { method: 'HEAD' })).arrayBuffer();
    await (await fetch(url('/variants/404'))).arrayBuffer();
    expect(await imageServerStats(lab)).toEqual({ '/images/lab.qcow2': 2, '/variants/404': 1 });
    expect(await imageServerStats(lab, true)).toEqual({
      'GET /images/lab.qcow2': 1,
      'HEAD /images/lab.qcow2': 1,
      'GET /variants/404': 1,
    });
    await resetImageServerStats(lab);
    expect(await imageServerStats(lab)).toEqual({});
  });

  it("echoes the caller's address as plain text on /ip (the IP-echo service of the real-guest tests)", async () => {
    const res = await fetch(url('/ip'));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('127.0.0.1\n');
  });
});
