// First start: a server without an admin password asks on the login page for the setup code from
// its log and the password, refuses a wrong code and two different entries, then logs the admin
// in; the new password works for the next login.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, seriousAxeViolations } from './harness/browser';
import { logIn, setupCodeIn } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let session: Session;
const chosen = 'first-start-password';

beforeAll(async () => {
  session = await openSession({ password: null, logInNow: false });
});

afterAll(async () => {
  await session?.close();
});

describe('first start', () => {
  it('asks for the setup code from the server log and the admin password, refusing a wrong code and two different entries', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/`);
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByText('This is the first start').waitFor();
    await page.getByText('journalctl -u kvm2-proxies').waitFor();
    await page.getByLabel('Setup code').fill('AAAAA-BBBBB-CCCCC');
    await page.getByLabel('Admin password').fill(chosen);
    await page.getByLabel('The same password again').fill(chosen);
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    await page.getByText('That setup code is not right.').waitFor();
    await page.getByLabel('Setup code').fill(setupCodeIn(app.logs()));
    await page.getByLabel('The same password again').fill(`${chosen}-typo`);
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await screenshot(page, 'login-first-start');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('sets the password, logs in, and the password works for the next login', async () => {
    const { page, app } = session;
    await page.getByLabel('The same password again').fill(chosen);
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    await page.waitForURL((url) => url.pathname === '/', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await logIn(page, { url: app.url, password: chosen });
    expect(new URL(page.url()).pathname).toBe('/');
  });
});
