// Every page under its Content-Security-Policy, against the lab: each is served with a policy that
// carries a fresh nonce and allows no eval, renders (its heading and data on screen), and the
// browser reports not one CSP violation: no blocked script, style, image or connection.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, loadLab } from '../lab/harness/lab';
import { firstProviderName, waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let lab: Lab;
let session: Session;
const staticProxy = `e2e-csp-${Date.now().toString(36)}`;
const violations: string[] = [];

/** Reports every CSP violation of the page, from the browser's own event and its console. */
async function watchViolations(page: Page): Promise<void> {
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`${page.url()}: ${message.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`Refused by the Content Security Policy: ${event.violatedDirective} blocked ${event.blockedURI}`),
    );
  });
}

beforeAll(async () => {
  lab = loadLab();
  session = await openSession({ providersConfig: lab.providersConfig, logInNow: false });
  await watchViolations(session.page);
  const { page, app } = session;
  await page.goto(`${app.url}/login`);
  await page.getByLabel('Admin password').fill(app.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname === '/', { timeout: 30_000 });
  const created = await session.api('POST', '/api/proxies', { name: staticProxy, mode: 'Static', address: '192.0.2.11', port: 3128 });
  expect(created.status()).toBe(201);
});

afterAll(async () => {
  if (session) {
    await session.api('DELETE', `/api/proxies/${staticProxy}`);
    await session.close();
  }
});

describe('every page under the Content-Security-Policy', () => {
  it('renders with a nonce policy and without a single violation', async () => {
    const { page, app } = session;
    const pages = [
      { path: '/', heading: 'Overview' },
      { path: '/hosts', heading: 'Hosts' },
      { path: `/hosts/${firstProviderName(lab.providersConfig)}/${lab.hosts[0]!.name}`, heading: lab.hosts[0]!.name },
      { path: '/proxies', heading: 'Proxies' },
      { path: '/proxies/new', heading: 'Create Proxy' },
      { path: `/proxies/${staticProxy}`, heading: staticProxy },
      { path: '/settings', heading: 'Settings' },
    ];
    const nonces = new Set<string>();
    for (const entry of pages) {
      const response = await page.goto(`${app.url}${entry.path}`);
      const policy = (await response?.allHeaders())?.['content-security-policy'] ?? '';
      expect(policy, entry.path).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(policy, entry.path).not.toContain('unsafe-eval');
      nonces.add(/'nonce-([^']+)'/.exec(policy)![1]!);
      await page.getByRole('heading', { level: 1, name: entry.heading }).waitFor({ timeout: 30_000 });
      await waitForData(page);
      await page.waitForLoadState('networkidle');
    }
    expect(nonces.size).toBe(pages.length);
    // The login page too, after logging out.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByLabel('Admin password').waitFor();
    expect(violations).toEqual([]);
  });
});
