// Logging in through the browser: pages send a visitor without a session to the login page, a
// wrong password is refused in place, the right one opens the overview, logging out ends it. The
// server here has no hosts, so the overview is the new admin's checklist with the config path.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations, screenshot } from './harness/browser';
import { logIn, waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let session: Session;
let configDir: string;
let configPath: string;

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'kvm2-e2e-empty-config-'));
  configPath = join(configDir, 'providers.yaml');
  writeFileSync(configPath, '# no providers yet\n[]\n');
  session = await openSession({ providersConfig: configPath, logInNow: false });
});

afterAll(async () => {
  await session?.close();
  rmSync(configDir, { recursive: true, force: true });
});

describe('login', () => {
  it('sends a visitor without a session to the login page', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/proxies`);
    await page.waitForURL((url) => url.pathname === '/login', { timeout: 30_000 });
    await page.getByLabel('Admin password').waitFor();
    await screenshot(page, 'login');
  });

  it('shows the app icon on the login page, served without a session', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/login`);
    const href = await page.locator('link[rel="icon"]').first().getAttribute('href');
    expect(href).toMatch(/^\/icon\.svg/);
    const icon = await session.api('GET', href!);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toContain('image/svg+xml');
    expect(await icon.text()).toContain('<title>kvm2 proxies</title>');
  });

  it('refuses a wrong password next to the field and stays on the login page', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/login`);
    await page.getByLabel('Admin password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('That password is not right.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('opens the overview with the prerequisites checklist and the config file when no host is configured', async () => {
    const { page, app } = session;
    await logIn(page, { url: app.url, password: app.password });
    await waitForData(page);
    const checklist = page.getByTestId('prerequisites');
    await checklist.waitFor();
    await expect(checklist.textContent()).resolves.toContain(configPath);
    await expect(checklist.textContent()).resolves.toContain('An SSH user in the libvirt group');
    await screenshot(page, 'overview-no-hosts');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('shows the checklist on the Hosts page too', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/hosts`);
    await page.getByTestId('prerequisites').waitFor();
    await screenshot(page, 'hosts-no-hosts');
  });

  it('ends the session on logout: pages send the browser back to the login page', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/`);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    const response = await session.api('GET', '/api/proxies');
    expect(response.status()).toBe(401);
    await page.goto(`${app.url}/hosts`);
    await page.waitForURL((url) => url.pathname === '/login', { timeout: 30_000 });
  });
});
