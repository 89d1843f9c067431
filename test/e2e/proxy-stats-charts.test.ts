// The Proxy page's VM charts render from stored history: a week of samples seeded into the store
// (as the sampler writes them, then consolidated like the running server does) shows as CPU,
// memory, network and disk charts for 1 h on first load (with no serious accessibility finding), and
// the 7 d window shows the week; the overview shows the last hour's traffic and the Proxy among the
// busiest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxySpecSchema } from '@/lib/proxy-spec';
import { openStore } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { ensureBuilt } from './harness/app-server';
import { screenshot, seriousAxeViolations } from './harness/browser';
import { waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

const proxy = 'charted';
const charts = ['chart-cpu', 'chart-memory', 'chart-network', 'chart-disk'];
let session: Session;
let dataDir: string;

/** Seven days of samples every 10 minutes, then the last hour every 10 s, consolidated. */
async function seedHistory(): Promise<void> {
  const store = await openStore({ dataDir, logger: createLogger({ level: 'silent' }) });
  try {
    const spec = proxySpecSchema.parse({ mode: 'Managed', provider: 'gone', placement: { zone: 'h1', machineType: 'small', image: 'debian-13' } });
    const record = await store.proxies.insert({ uid: 'uid-charted', name: proxy, spec, now: new Date().toISOString() });
    const now = Date.now();
    const row = (atMs: number, index: number) => ({
      proxyUid: record.uid,
      provider: 'gone',
      target: 'h1',
      domain: 'proxy-charted',
      sampledAtMs: atMs,
      spanMs: 10_000,
      cpuPercent: 10 + (index % 10),
      memoryBytes: 200 * 1024 * 1024,
      memoryTotalBytes: 256 * 1024 * 1024,
      netRxBps: 50_000 + index,
      netTxBps: 20_000,
      diskReadBps: 4_096,
      diskWriteBps: 1_024,
    });
    const host = (atMs: number) => ({ provider: 'gone', target: 'h1', sampledAtMs: atMs, cpuPercent: 30, memoryUsedBytes: 1, memoryTotalBytes: 2 });
    let index = 0;
    for (let at = now - 7 * 86_400_000 + 600_000; at < now - 3_600_000; at += 600_000) await store.stats.record({ host: host(at), vms: [row(at, index++)] });
    for (let at = now - 3_590_000; at <= now; at += 10_000) await store.stats.record({ host: host(at), vms: [row(at, index++)] });
    await store.stats.consolidate(now);
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kvm2-e2e-stats-'));
  // A build can take minutes: seed after it, so the seeded hour is the hour the server counts back.
  await ensureBuilt();
  await seedHistory();
  session = await openSession({ dataDir });
});

afterAll(async () => {
  await session?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The chart's own summary (recharts' inner SVG carries a role too). */
const summaryOf = (testId: string) => session.page.getByTestId(testId).locator('div[role="img"]').getAttribute('aria-label');

const pointsOf = async (testId: string): Promise<number> => Number(await session.page.getByTestId(testId).getAttribute('data-points'));

describe('the Proxy page’s VM charts', () => {
  it('render the stored last hour on first load: CPU, memory, network and disk, each with a drawn line', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/proxies/${proxy}`);
    await waitForData(page);
    for (const chart of charts) {
      const figure = page.getByTestId(chart);
      // A flat line has no height, which Playwright calls hidden: wait for it in the DOM.
      await figure.locator('.recharts-line-curve').first().waitFor({ state: 'attached' });
      await expect(figure.locator('.recharts-line-curve').first().getAttribute('d')).resolves.toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+){100,}/);
    }
    // 360 seeded samples of 10 s; the app's start takes a few of them out of the hour.
    expect(await pointsOf('chart-cpu')).toBeGreaterThanOrEqual(350);
    await expect(summaryOf('chart-network')).resolves.toMatch(/^Network: \d+ points; latest in [\d.]+ KiB\/s, out 19\.5 KiB\/s$/);
    // Right beside it, the gateway's traffic: no crawler went through this Proxy.
    await page.getByTestId('chart-gateway-empty').getByText('No traffic went through the gateway via this Proxy in this window.').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'proxy-stats-1h');
  });

  it('shows the whole week in the 7 d window', async () => {
    const { page } = session;
    await page.getByRole('group', { name: 'Time window' }).getByRole('button', { name: '7 d' }).click();
    await expect.poll(() => pointsOf('chart-cpu'), { timeout: 15_000 }).toBeGreaterThan(900);
    await expect(page.getByRole('button', { name: '7 d' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(summaryOf('chart-memory')).resolves.toContain('latest used on host 200 MiB, given to the VM 256 MiB');
    await screenshot(page, 'proxy-stats-7d');
  });

  it('puts the last hour’s traffic and the busiest Proxies on the overview', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/`);
    await waitForData(page);
    // 360 samples of 10 s at about 50,000 B/s in (176 MiB an hour) and 20,000 B/s out (68.7 MiB),
    // less the few seeded before the hour the server counts back from (the app takes seconds to start).
    await expect(page.getByTestId('traffic-total').textContent()).resolves.toMatch(/^1[67]\d MiB in, 6[5-8]\.\d MiB out in the last hour$/);
    await expect(page.getByTestId('busiest-proxies').getByRole('link').allTextContents()).resolves.toEqual([proxy]);
    await page.getByTestId('chart-traffic').locator('.recharts-line-curve').first().waitFor({ state: 'attached' });
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, 'overview-traffic');
  });
});
