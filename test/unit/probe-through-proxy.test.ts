import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseEchoedIp, probeProxy } from '@/server/control/probe';
import { Prober } from '@/server/control/prober';
import { systemClock } from '@/server/control/clock';
import { openStore, type Store } from '@/server/store';
import { ProxyService } from '@/server/control/proxy-service';
import { silentLogger, tempDir } from '@/test/fakes/control-plane';

// A tiny forward proxy on loopback: absolute-form requests are fetched from their origin; a path
// of /hang never answers. Every request it sees is logged.
interface Loopback {
  server: Server;
  port: number;
  seen: string[];
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Loopback> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

let target: Loopback;
let echo: Loopback;
let proxy: Loopback;

beforeAll(async () => {
  target = await listen((req, res) => {
    if (req.url === '/missing') return void res.writeHead(404).end('no');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  echo = await listen((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ip":"203.0.113.7"}'));
  proxy = await listen((req, res) => {
    const url = req.url ?? '';
    if (!url.startsWith('http://')) return void res.writeHead(400).end('not a proxy request');
    if (url.endsWith('/hang')) return; // never answers
    const upstream = httpRequest(url, { method: req.method, headers: { ...req.headers, host: new URL(url).host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end('bad gateway'));
    req.pipe(upstream);
  });
});

afterAll(async () => {
  for (const server of [target, echo, proxy]) {
    server.server.closeAllConnections();
    await new Promise((resolve) => server.server.close(resolve));
  }
});

afterEach(() => {
  for (const server of [target, echo, proxy]) server.seen.length = 0;
});

const targetUrl = () => `http://127.0.0.1:${target.port}/health`;

describe('probeProxy', () => {
  it('reaches the target through the proxy and records the egress IP from the echo URL', async () => {
    const result = await probeProxy({
      host: '127.0.0.1',
      port: proxy.port,
      targetUrl: targetUrl(),
      ipEchoUrl: `http://127.0.0.1:${echo.port}/`,
      timeoutMs: 2_000,
    });
    expect(result).toMatchObject({ healthy: true, reason: 'TargetReachable', statusCode: 200, egressIP: '203.0.113.7' });
    expect(proxy.seen).toEqual([targetUrl(), `http://127.0.0.1:${echo.port}/`]);
    expect(target.seen).toEqual(['/health']);
  });

  it('is unhealthy with BadStatus when the target answers an error through the proxy', async () => {
    const result = await probeProxy({ host: '127.0.0.1', port: proxy.port, targetUrl: `http://127.0.0.1:${target.port}/missing`, timeoutMs: 2_000 });
    expect(result).toMatchObject({ healthy: false, reason: 'BadStatus', statusCode: 404 });
  });

  it('is unhealthy with ConnectionFailed when nothing listens on the proxy port', async () => {
    const closed = await listen(() => undefined);
    await new Promise((resolve) => closed.server.close(resolve));
    const result = await probeProxy({ host: '127.0.0.1', port: closed.port, targetUrl: targetUrl(), timeoutMs: 2_000 });
    expect(result).toMatchObject({ healthy: false, reason: 'ConnectionFailed' });
  });

  it('is unhealthy with Timeout when the proxy does not answer in time', async () => {
    const result = await probeProxy({ host: '127.0.0.1', port: proxy.port, targetUrl: `http://127.0.0.1:${target.port}/hang`, timeoutMs: 200 });
    expect(result).toMatchObject({ healthy: false, reason: 'Timeout' });
  });

  it('without a target URL asks only the proxy port itself, sending nothing onwards', async () => {
    const result = await probeProxy({ host: '127.0.0.1', port: proxy.port, timeoutMs: 2_000 });
    expect(result).toMatchObject({ healthy: true, reason: 'ProxyAnswered', statusCode: 400 });
    expect(proxy.seen).toEqual(['/']);
    expect(target.seen).toEqual([]);
  });

  it.each([
    ['203.0.113.7\n', '203.0.113.7'],
    ['{"origin":"203.0.113.8, 10.0.0.1"}', '203.0.113.8'],
    ['2001:db8::1', '2001:db8::1'],
    ['<html>nope</html>', undefined],
    ['{"ip":"not-an-ip"}', undefined],
  ])('reads the echoed IP from %j', (body, ip) => {
    expect(parseEchoedIp(body)).toBe(ip);
  });
});

describe('Prober', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: Store;

  afterEach(async () => {
    await store?.close();
    dir?.remove();
  });

  it('makes a Running proxy Ready, keeps lastTransitionTime until the result flips, records flips as events and every probe in the history', async () => {
    dir = tempDir();
    store = await openStore({ dataDir: dir.path });
    let nowMs = Date.parse('2026-12-01T10:00:00Z');
    const clock = { ...systemClock, now: () => nowMs };
    const proxies = new ProxyService({ store, clock, providerNames: () => [], onChange: () => undefined });
    const { uid } = await proxies.create({ name: 'edge', mode: 'Static', address: '127.0.0.1', port: proxy.port });
    await store.proxies.writeStatus(uid, { phase: 'Running', ip: '127.0.0.1', conditions: [] });
    let url = targetUrl();
    const prober = new Prober({
      store,
      clock,
      logger: silentLogger(),
      intervalMs: 60_000,
      timeoutMs: 2_000,
      get targetUrl() {
        return url;
      },
    });

    await prober.probeAll();
    const ready = await proxies.get('edge');
    expect(ready.status.phase).toBe('Ready');
    expect(ready.status.healthy).toBe(true);
    const since = ready.status.conditions.find((c) => c.type === 'Healthy')!;
    expect(since).toMatchObject({ status: 'True', reason: 'TargetReachable' });

    nowMs += 60_000;
    await prober.probeAll();
    expect((await proxies.get('edge')).status.conditions.find((c) => c.type === 'Healthy')!.lastTransitionTime).toBe(since.lastTransitionTime);

    url = `http://127.0.0.1:${target.port}/missing`;
    nowMs += 60_000;
    await prober.probeAll();
    const down = await proxies.get('edge');
    expect(down.status.phase).toBe('Running');
    expect(down.status.healthy).toBe(false);
    expect(down.status.conditions.find((c) => c.type === 'Healthy')!.lastTransitionTime).not.toBe(since.lastTransitionTime);
    expect((await proxies.events('edge')).map((event) => event.reason)).toEqual(['Unhealthy', 'Healthy', 'Created']);
    expect(await proxies.discover()).toEqual([]);
    const history = await proxies.probes('edge', 0);
    expect(history.map((sample) => [sample.probedAt, sample.healthy])).toEqual([
      ['2026-12-01T10:00:00.000Z', true],
      ['2026-12-01T10:01:00.000Z', true],
      ['2026-12-01T10:02:00.000Z', false],
    ]);
    expect(await proxies.probes('edge', Date.parse('2026-12-01T10:01:30Z'))).toHaveLength(1);
  });
});
