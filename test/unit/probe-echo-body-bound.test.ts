// The IP-echo URL is fetched through the proxy being probed, so a proxy (or whatever answers
// behind it) chooses the body. The probe reads the first KiB, which holds any echo service's
// answer, and closes the connection: an endless body neither fills the server's memory nor holds
// the probe until its timeout.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeProxy } from '@/server/control/probe';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('the egress-IP probe facing an endless echo body', () => {
  it('takes the IP from the first bytes and closes the flood, long before the probe times out', async () => {
    let floodClosed = false;
    let sentBytes = 0;
    // A forward proxy that answers everything itself: the health target with `ok`, the echo URL
    // with the IP and then 64 KiB chunks for as long as the client keeps the connection.
    server = createServer((req, res) => {
      if (!req.url?.endsWith('/echo')) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('203.0.113.7\n');
      const chunk = Buffer.alloc(64 * 1024, ' ');
      const pump = () => {
        while (!res.destroyed) {
          sentBytes += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.on('close', () => (floodClosed = true));
      pump();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;

    const started = performance.now();
    const result = await probeProxy({
      host: '127.0.0.1',
      port,
      targetUrl: 'http://203.0.113.1/health',
      ipEchoUrl: 'http://203.0.113.2/echo',
      timeoutMs: 20_000,
    });
    expect(result).toMatchObject({ healthy: true, reason: 'TargetReachable', egressIP: '203.0.113.7' });
    expect(performance.now() - started).toBeLessThan(10_000);
    await expect.poll(() => floodClosed).toBe(true);
    expect(sentBytes).toBeGreaterThan(0);
  }, 30_000);
});
