// Steps every browser test takes: log in through the form, wait for a page's data to be on screen.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { parse as parseYaml } from 'yaml';

export async function logIn(page: Page, options: { url: string; password: string }): Promise<void> {
  await page.goto(`${options.url}/login`);
  await page.getByLabel('Admin password').fill(options.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname === '/', { timeout: 30_000 });
}

/** The one-time setup code a server without a password printed in its log at start. */
export function setupCodeIn(logs: string): string {
  for (const line of logs.split('\n')) {
    if (!line.startsWith('{')) continue;
    const code = (JSON.parse(line) as { setupCode?: unknown }).setupCode;
    if (typeof code === 'string') return code;
  }
  throw new Error('the server logged no setup code');
}

/** Until no skeleton announces "Loading …" any more. */
export async function waitForData(page: Page, timeoutMs = 30_000): Promise<void> {
  // A locator, not waitForFunction: that evaluates a string in the page, which the pages' CSP forbids.
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached', timeout: timeoutMs });
}

/** The name of the first provider entry of a providers config (the lab has one: `lab`). */
export function firstProviderName(configPath: string): string {
  const entries = parseYaml(readFileSync(configPath, 'utf8')) as Array<{ name?: unknown }> | null;
  const name = entries?.[0]?.name;
  if (typeof name !== 'string') throw new Error(`${configPath} has no provider entry`);
  return name;
}
