// Every page, at desktop and phone width, against the lab: axe finds no serious or critical
// violation, nothing scrolls sideways on a phone, and a screenshot of each is kept. Dialogs work
// from the keyboard: focus starts on Cancel, Tab stays inside, Escape closes and gives focus back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, loadLab } from '../lab/harness/lab';
import { screenshot, seriousAxeViolations } from './harness/browser';
import { firstProviderName, waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let lab: Lab;
let session: Session;
const staticProxy = `e2e-static-${Date.now().toString(36)}`;

beforeAll(async () => {
  lab = loadLab();
  session = await openSession({ providersConfig: lab.providersConfig });
  // A Static Proxy gives the detail page something to show without starting a VM.
  const created = await session.api('POST', '/api/proxies', { name: staticProxy, mode: 'Static', address: '192.0.2.10', port: 3128, labels: { pool: 'e2e' } });
  expect(created.status()).toBe(201);
});

afterAll(async () => {
  if (session) {
    await session.api('DELETE', `/api/proxies/${staticProxy}`);
    await session.close();
  }
});

const pages = (): Array<{ name: string; path: string }> => [
  { name: 'overview', path: '/' },
  { name: 'hosts', path: '/hosts' },
  { name: 'host', path: `/hosts/${firstProviderName(lab.providersConfig)}/${lab.hosts[0]!.name}` },
  { name: 'proxies', path: '/proxies' },
  { name: 'proxy-new', path: '/proxies/new' },
  { name: 'proxy', path: `/proxies/${staticProxy}` },
  { name: 'settings', path: '/settings' },
  { name: 'gateway', path: '/gateway' },
];

const widths = [
  { label: 'desktop', width: 1280 },
  { label: 'phone', width: 390 },
];

describe('every page', () => {
  for (const { label, width } of widths) {
    it(`has no serious accessibility violation and fits a ${label} screen (${width} px)`, async () => {
      const { page, app } = session;
      await page.setViewportSize({ width, height: 900 });
      const findings: Record<string, unknown> = {};
      for (const entry of pages()) {
        await page.goto(`${app.url}${entry.path}`);
        await waitForData(page);
        await page.waitForLoadState('networkidle');
        const violations = await seriousAxeViolations(page);
        if (violations.length > 0) findings[entry.name] = violations;
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (overflow > 0) findings[`${entry.name} scrolls sideways by`] = overflow;
        await screenshot(page, `${entry.name}-${label}`);
      }
      expect(findings).toEqual({});
    });
  }

  it('has no serious accessibility violation on the login page', async () => {
    const { app } = session;
    const page = await session.browser.newPage();
    try {
      await page.goto(`${app.url}/login`);
      await page.getByLabel('Admin password').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, 'login-desktop');
    } finally {
      await page.close();
    }
  });
});

describe('dialogs', () => {
  it('open on Cancel, keep Tab inside, close on Escape and give focus back', async () => {
    const { page, app } = session;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.url}/proxies/${staticProxy}`);
    const deleteButton = page.getByRole('button', { name: 'Delete', exact: true });
    await deleteButton.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    await expect(focused()).resolves.toBe('Cancel');
    await page.keyboard.press('Tab');
    await expect(focused()).resolves.toBe('Delete Proxy');
    await page.keyboard.press('Tab');
    await expect(focused()).resolves.toBe('Cancel');
    await screenshot(page, 'proxy-delete-dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect(focused()).resolves.toBe('Delete');
    // Nothing was deleted.
    expect((await session.api('GET', `/api/proxies/${staticProxy}`)).status()).toBe(200);
  });
});
