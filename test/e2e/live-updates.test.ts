// The dashboard kept current by GET /api/events (no lab needed: Static Proxies changed through the
// API): the header says Live, a changed, a new and a deleted Proxy show on the open Proxies page
// without it fetching the list again (polling is off while the stream is up; the stream starts from
// where the page rendered, so loading fetches the list once), and with the stream refused the
// header says Polling and the page polls. The virtualised table keeps its semantics, and its bulk
// bar deletes the rows selected.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, seriousAxeViolations } from './harness/browser';
import { waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let session: Session;
const prefix = `live-${Date.now().toString(36)}`;
const bulk = 300;
const name = (index: number) => `${prefix}-${String(index).padStart(3, '0')}`;

beforeAll(async () => {
  session = await openSession();
  for (let index = 0; index < bulk; index += 1) {
    const created = await session.api('POST', '/api/proxies', { name: name(index), mode: 'Static', address: '192.0.2.10', port: 3128 });
    expect(created.status()).toBe(201);
  }
});

afterAll(async () => {
  await session?.close();
});

/** Counts the page's GETs of the Proxy list from now on. */
function listFetches(page: Page): () => number {
  let count = 0;
  page.on('request', (request) => {
    if (request.method() === 'GET' && new URL(request.url()).pathname === '/api/proxies') count += 1;
  });
  return () => count;
}

const row = (page: Page, proxy: string) => page.getByTestId(`proxy-row-${proxy}`);

describe('the live dashboard', () => {
  it('shows Live and takes changed, new and deleted Proxies from the stream, without fetching the list', async () => {
    const { page, app } = session;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.url}/proxies`);
    await waitForData(page);
    await page.getByTestId('live-indicator').getByText('Live').waitFor({ timeout: 15_000 });
    await row(page, name(0)).waitFor();
    await page.waitForLoadState('networkidle');
    const fetches = listFetches(page);

    const changed = await session.api('PUT', `/api/proxies/${name(0)}`, { mode: 'Static', address: '198.51.100.7', port: 3128, labels: {} });
    expect(changed.status()).toBe(200);
    await row(page, name(0)).getByText('198.51.100.7').waitFor({ timeout: 5_000 });

    const added = `${prefix}-000a`;
    expect((await session.api('POST', '/api/proxies', { name: added, mode: 'Static', address: '192.0.2.99', port: 3128 })).status()).toBe(201);
    await row(page, added).waitFor({ timeout: 5_000 });
    expect((await session.api('DELETE', `/api/proxies/${added}`)).status()).toBe(202);
    await row(page, added).waitFor({ state: 'detached', timeout: 10_000 });

    // Longer than the polling interval (5 s): still no fetch of the list.
    await page.waitForTimeout(6_000);
    expect(fetches()).toBe(0);
    await screenshot(page, 'proxies-live');
  });

  it('fetches the list once on load, and a change made before the stream opened arrives by its replay', async () => {
    const page = await session.browser.newPage();
    try {
      // The stream is held back until the page shows the list, and the change is made meanwhile.
      let openStream = () => {};
      const streamHeld = new Promise<void>((resolve) => (openStream = resolve));
      await page.route('**/api/events**', async (route) => {
        await streamHeld;
        await route.continue();
      });
      const fetches = listFetches(page);
      await page.goto(`${session.app.url}/proxies`);
      await waitForData(page);
      await row(page, name(1)).waitFor();
      const changed = await session.api('PUT', `/api/proxies/${name(1)}`, { mode: 'Static', address: '198.51.100.8', port: 3128, labels: {} });
      expect(changed.status()).toBe(200);
      openStream();
      await page.getByTestId('live-indicator').getByText('Live').waitFor({ timeout: 15_000 });
      await row(page, name(1)).getByText('198.51.100.8').waitFor({ timeout: 5_000 });
      await page.waitForLoadState('networkidle');
      // A fresh stream's `ready` would have had every query fetched again to catch up.
      expect(fetches()).toBe(1);
    } finally {
      await page.close();
    }
  });

  it('renders only the rows near the window, says how many there are, and keeps the table accessible', async () => {
    const { page, app } = session;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.url}/proxies`);
    await waitForData(page);
    await row(page, name(0)).waitFor();
    const table = page.getByRole('table');
    await expect(table.getAttribute('aria-rowcount')).resolves.toBe(String(bulk + 1));
    const rendered = await page.locator('[data-testid^="proxy-row-"]').count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(bulk / 2);
    await expect(row(page, name(0)).getAttribute('aria-rowindex')).resolves.toBe('2');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.keyboard.press('End');
    await row(page, name(bulk - 1)).waitFor({ timeout: 5_000 });
    await expect(row(page, name(bulk - 1)).getAttribute('aria-rowindex')).resolves.toBe(String(bulk + 1));
    await expect(row(page, name(0)).count()).resolves.toBe(0);
  });

  it('lets go of a tab’s stream when the tab closes: after more tabs than a session may stream from, a new one is still Live', async () => {
    for (let tab = 0; tab < 6; tab += 1) {
      const page = await session.browser.newPage();
      try {
        await page.goto(`${session.app.url}/proxies`);
        await page.getByTestId('live-indicator').getByText('Live').waitFor({ timeout: 15_000 });
      } finally {
        await page.close();
      }
    }
  });

  it('deletes the rows selected, from a bar whose code loads at the first selection, not with the table', async () => {
    const { page, app } = session;
    const chosen = [`${prefix}-bulk-a`, `${prefix}-bulk-b`];
    for (const proxy of chosen)
      expect((await session.api('POST', '/api/proxies', { name: proxy, mode: 'Static', address: '192.0.2.11', port: 3128 })).status()).toBe(201);
    await page.goto(`${app.url}/proxies`);
    await waitForData(page);
    await page.getByLabel('Name or IP').fill(`${prefix}-bulk`);
    await row(page, chosen[1]!).waitFor();
    await page.waitForLoadState('networkidle');
    let scripts = 0;
    page.on('request', (request) => void (request.resourceType() === 'script' && (scripts += 1)));
    await page.getByLabel(`Select ${chosen[0]}`).check();
    await page.getByLabel(`Select ${chosen[1]}`).check();
    const bar = page.getByRole('region', { name: 'Bulk actions' });
    await bar.getByText('2 selected').waitFor();
    expect(scripts).toBeGreaterThan(0);
    await bar.getByRole('button', { name: 'Delete 2' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.textContent()).resolves.toContain(chosen.join(', '));
    await dialog.getByRole('button', { name: 'Delete them' }).click();
    await bar.getByRole('status').getByText('2 of 2 deleted.').waitFor();
    for (const proxy of chosen) await row(page, proxy).waitFor({ state: 'detached', timeout: 10_000 });
    for (const proxy of chosen) expect((await session.api('GET', `/api/proxies/${proxy}`)).status()).toBe(404);
  });

  it('says Polling and polls while the stream is refused', async () => {
    const page = await session.browser.newPage();
    try {
      await page.route('**/api/events**', (route) =>
        route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":{"code":"ERR_RESOURCE_UNAVAILABLE","message":"down"}}' }),
      );
      await page.goto(`${session.app.url}/proxies`);
      await waitForData(page);
      await page.getByTestId('live-indicator').getByText('Polling').waitFor();
      const fetches = listFetches(page);
      await expect.poll(fetches, { timeout: 12_000, interval: 500 }).toBeGreaterThan(0);
      await page.getByTestId('live-indicator').getByText('Polling').waitFor();
    } finally {
      await page.close();
    }
  });
});
