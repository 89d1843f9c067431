// One browser test session: the app served against a providers config (the lab's by default), a
// Chromium with a fresh profile, and a page logged in as the admin. `api()` calls the JSON API
// with the page's session cookie and a same-origin Origin header, as the dashboard does.
import type { APIResponse, Page } from 'playwright-core';
import { expect, vi } from 'vitest';
import { type AppServer, startApp, type StartAppOptions } from './app-server';
import { type Browser, launchBrowser } from './browser';
import { logIn } from './dashboard';

export interface Session {
  app: AppServer;
  browser: Browser;
  page: Page;
  api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<APIResponse>;
  close(): Promise<void>;
}

/** Checks and stats samples every 2 s, so tests see a changed host within seconds instead of a minute. */
export const fastLoops: Record<string, string> = {
  PROVIDER_CHECK_INTERVAL: '2s',
  STATS_SAMPLE_INTERVAL: '2s',
  PROVISIONING_POLL_INTERVAL: '2s',
  RECONCILE_BACKOFF_BASE: '500ms',
  RECONCILE_BACKOFF_CAP: '5s',
};

export async function openSession(options: StartAppOptions & { logInNow?: boolean } = {}): Promise<Session> {
  const app = await startApp({ ...options, env: { ...fastLoops, ...options.env } });
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const page = await browser.newPage();
    if (options.logInNow !== false) await logIn(page, { url: app.url, password: app.password });
    const opened = browser;
    return {
      app,
      browser: opened,
      page,
      // Tests make every request beside the browser here. Each closes its connection: Playwright's
      // request context keeps an idle socket without end and the app's server closes it after 5 s,
      // so a request written just as the server closes it is reset (ECONNRESET, as CI once saw).
      api: (method, path, body) =>
        page.request.fetch(`${app.url}${path}`, {
          method,
          headers: { connection: 'close', origin: app.url, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { data: JSON.stringify(body) }),
        }),
      async close() {
        await opened.close();
        await app.stop();
      },
    };
  } catch (err) {
    await browser?.close();
    await app.stop();
    throw err;
  }
}

/** A test's teardown: deletes the Proxy and waits up to two minutes for it to be gone, never failing the run. */
export async function deleteProxyAndWait(session: Session, name: string): Promise<void> {
  await session.api('DELETE', `/api/proxies/${name}`);
  await vi
    .waitFor(async () => expect((await session.api('GET', `/api/proxies/${name}`)).status()).toBe(404), { timeout: 120_000, interval: 1_000 })
    .catch(() => undefined);
}
