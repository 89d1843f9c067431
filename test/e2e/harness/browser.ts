// Debian's Chromium driven by playwright-core: headless, no sandbox (root), no background traffic,
// a fresh profile per launch (removed on close). Screenshots land in test-results/screenshots/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { repoDir } from './app-server';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const screenshotDir = join(repoDir, 'test-results/screenshots');

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

/** bypassCSP: for measurements that poll the page with evaluated strings, which the pages' CSP forbids. */
export async function launchBrowser(options: { baseURL?: string; bypassCSP?: boolean } = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'kvm2-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: { width: 1280, height: 900 },
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.bypassCSP ? { bypassCSP: true } : {}),
  });
  return {
    context,
    async newPage(size) {
      const page = await context.newPage();
      if (size) await page.setViewportSize({ width: size.width ?? 1280, height: size.height ?? 900 });
      return page;
    },
    async close() {
      await context.close();
      // Chromium may still be writing its profile for a moment after close.
      rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe's serious and critical violations on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeFinding[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? '',
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
}
