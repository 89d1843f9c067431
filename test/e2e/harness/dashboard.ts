// Steps every browser test takes: log in through the form, wait for a page's data to be on screen.
import type { Page } from 'playwright-core';

export async function logIn(page: Page, options: { url: string; password: string }): Promise<void> {
  await page.goto(`${options.url}/login`);
  await page.getByLabel('Admin password').fill(options.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname === '/', { timeout: 30_000 });
}

/** Until no skeleton announces "Loading …" any more. */
export async function waitForData(page: Page, timeoutMs = 30_000): Promise<void> {
  await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0, undefined, { timeout: timeoutMs });
}
