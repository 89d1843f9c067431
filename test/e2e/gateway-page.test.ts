// The Gateway page with real traffic (issue 24): a Static Proxy pointing at a real forward proxy on
// loopback (proxy-chain, direct) is probed Ready through itself; on /gateway, New gateway token
// fills the whole URL, Copy URL puts exactly that on the clipboard, and a download through that URL
// (undici's ProxyAgent, as a crawler would use it) moves the page's totals while it still runs,
// with the Proxy's row showing its open tunnel; afterwards the Proxy's page charts every byte of it
// "Via the gateway" (the stats history). The origin streams the body until the test has seen
// that, so the download lasts as long as needed and no longer.
import { createServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { Server as ProxyChainServer } from 'proxy-chain';
import { ProxyAgent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gatewayViewSchema } from '@/lib/api/gateway';
import { proxyViewSchema } from '@/lib/api/proxies';
import { proxyStatsSchema } from '@/lib/api/stats';
import { formatBytes } from '@/components/ui/format';
import { screenshot } from './harness/browser';
import { waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

const chunk = Buffer.alloc(64 * 1024, 'x');
const chunkEveryMs = 100;
const proxyName = `e2e-gw-${Date.now().toString(36)}`;

/** The origin: /probe answers the health probe, /download streams chunks until `release()`. */
interface Origin {
  url: string;
  probes: () => number;
  release: () => void;
  close: () => Promise<void>;
}

function startOrigin(): Promise<Origin> {
  let probes = 0;
  const downloads = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let released = false;
  const server: HttpServer = createServer((request, response) => {
    if (request.url === '/probe') {
      probes += 1;
      response.end('ok');
      return;
    }
    if (request.url !== '/download') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    downloads.add(response);
    const timer = setInterval(() => {
      if (released) {
        clearInterval(timer);
        response.end();
        return;
      }
      response.write(chunk);
    }, chunkEveryMs);
    timers.add(timer);
    response.on('close', () => clearInterval(timer));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        probes: () => probes,
        release: () => (released = true),
        close: () =>
          new Promise((done) => {
            for (const timer of timers) clearInterval(timer);
            for (const response of downloads) response.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

let origin: Origin;
let upstream: ProxyChainServer;
let session: Session;

beforeAll(async () => {
  origin = await startOrigin();
  // A real forward proxy standing in for a Proxy VM: proxy-chain without an upstream connects directly.
  upstream = new ProxyChainServer({ host: '127.0.0.1', port: 0 });
  await upstream.listen();
  // The probe fetches PROBE_URL through the proxy, so Ready means the proxy really forwards.
  session = await openSession({ env: { PROBE_URL: `${origin.url}/probe`, PROBE_INTERVAL: '2s' } });
  const created = await session.api('POST', '/api/proxies', { name: proxyName, mode: 'Static', address: '127.0.0.1', port: upstream.port });
  expect(created.status(), await created.text()).toBe(201);
  await vi.waitFor(async () => expect(proxyViewSchema.parse(await (await session.api('GET', `/api/proxies/${proxyName}`)).json()).status.phase).toBe('Ready'), {
    timeout: 30_000,
    interval: 250,
  });
  expect(origin.probes()).toBeGreaterThan(0);
});

afterAll(async () => {
  origin?.release();
  await session?.close();
  await upstream?.close(true);
  await origin?.close();
});

const tile = (page: Page, label: string) =>
  page
    .getByTestId('gateway-totals')
    .locator('div', { has: page.getByText(label, { exact: true }) })
    .locator('p')
    .nth(1);

describe('the Gateway page', () => {
  it('gives a complete URL to copy, and its counters move while a download runs through it', async () => {
    const { page, app } = session;
    await session.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await page.goto(`${app.url}/gateway`);
    await waitForData(page);
    await page.getByLabel('New token name').fill('page-e2e');
    await page.getByRole('button', { name: 'New gateway token' }).click();
    await page.getByText('Gateway token page-e2e created and filled in.', { exact: false }).waitFor();
    const url = ((await page.getByTestId('gateway-url').textContent()) ?? '').trim();
    expect(url).toMatch(new RegExp(`^http://crawler:kvm2g_[0-9a-f]{16}_[A-Za-z0-9_-]{43}@127\\.0\\.0\\.1:${app.gatewayPort}$`));
    await page.getByRole('button', { name: 'Copy URL' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(url);
    await expect(tile(page, 'Bytes in').textContent()).resolves.toBe('0 B');

    // The URL exactly as copied, as a crawler's proxy setting. The gateway reads the fleet on each
    // Proxy write and every 5 s, so the first attempt may come before it knows the proxy is Ready.
    const agent = new ProxyAgent(url);
    const response = await vi.waitFor(
      async () => {
        const answer = await undiciFetch(`${origin.url}/download`, { dispatcher: agent });
        expect(answer.status).toBe(200);
        return answer;
      },
      { timeout: 15_000, interval: 500 },
    );
    let received = 0;
    let finished = false;
    const download = (async () => {
      for await (const part of response.body as AsyncIterable<Uint8Array>) received += part.byteLength;
      finished = true;
    })();

    const proxyRow = page.getByRole('region', { name: 'Gateway traffic per Proxy' }).getByRole('row', { name: new RegExp(`^${proxyName}\\b`) });
    await expect.poll(() => proxyRow.getByRole('cell').nth(1).textContent(), { timeout: 10_000, interval: 200 }).toBe('1');
    await expect(tile(page, 'Open tunnels').textContent()).resolves.toBe('1');
    // Bytes while the tunnel is open (reported at least every 5 s, and the page follows them).
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          const value = (await tile(page, 'Bytes in').textContent()) ?? '';
          if (value !== '0 B') seen.add(value);
          return seen.size;
        },
        { timeout: 25_000, interval: 250 },
      )
      .toBeGreaterThanOrEqual(2);
    expect(finished).toBe(false);
    await expect(proxyRow.getByRole('cell').nth(1).textContent()).resolves.toBe('1');
    await screenshot(page, 'gateway-download-running');

    origin.release();
    await download;
    expect(received).toBeGreaterThan(0);
    expect(received % chunk.length).toBe(0);
    await expect.poll(() => tile(page, 'Open tunnels').textContent(), { timeout: 10_000, interval: 200 }).toBe('0');
    const view = gatewayViewSchema.parse(await (await session.api('GET', '/api/gateway')).json());
    const traffic = view.proxies.find((entry) => entry.proxy === proxyName);
    // In: the body plus the proxy's and the origin's response headers.
    expect(traffic?.bytesIn).toBeGreaterThan(received);
    expect(traffic?.bytesIn).toBeLessThan(received + 4096);
    await expect(tile(page, 'Bytes in').textContent()).resolves.toBe(formatBytes(view.proxies.reduce((sum, entry) => sum + entry.bytesIn, 0)));
    await expect(proxyRow.getByRole('cell').nth(1).textContent()).resolves.toBe('0');
    await agent.close();

    // The stats history: the leader's rounds chart every byte that went through the Proxy, once,
    // and its page shows "Via the gateway" (a Static Proxy: that chart alone).
    const charted = async () => {
      const stats = proxyStatsSchema.parse(await (await session.api('GET', `/api/proxies/${proxyName}/stats?window=1h`)).json());
      return Math.round(stats.gateway.reduce((sum, point) => sum + point.inBps * stats.stepSeconds, 0));
    };
    await expect.poll(charted, { timeout: 30_000, interval: 500 }).toBe(traffic?.bytesIn);
    await page.goto(`${app.url}/proxies/${proxyName}`);
    await waitForData(page);
    const chart = page.getByTestId('chart-gateway');
    await chart.locator('.recharts-line-curve').first().waitFor({ state: 'attached' });
    await expect(chart.locator('div[role="img"]').getAttribute('aria-label')).resolves.toMatch(/^Via the gateway: \d+ points; latest in \(to crawlers\) /);
    await screenshot(page, 'proxy-gateway-traffic');
  });
});
