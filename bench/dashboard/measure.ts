// Page measurements in Chromium: time from navigation to "fully rendered" (a condition checked on
// every animation frame), how long after the page's API data arrived that was, and the gzipped
// JavaScript transferred (from the network log, cache disabled), split into what the HTML asks
// for (first load) and what is fetched lazily afterwards.
import type { BrowserContext, Page } from 'playwright-core';

export interface PageFigures {
  navigationToRenderedMs: number;
  /** rendered minus the latest first answer (per URL) of the API responses the page needs */
  renderedAfterDataMs: number;
  dataArrivedMs: number;
  firstLoadJsBytes: number;
  lazyJsBytes: number;
}

export interface PageSpec {
  url: string;
  /** a function body run on every frame; true once the page is fully rendered */
  rendered: string;
  /** path prefixes of the API responses the page waits for */
  apiPaths: string[];
}

const scriptPaths = (html: string): Set<string> => new Set([...html.matchAll(/\/_next\/static\/[^"'\s]+?\.js/g)].map((match) => match[0]));

async function renderedAt(page: Page, rendered: string): Promise<number> {
  await page.waitForFunction(`(() => { if (!(${rendered})) return false; window.__renderedAt ??= performance.now(); return true; })()`, undefined, {
    polling: 'raf',
    timeout: 120_000,
  });
  return page.evaluate(() => (window as unknown as { __renderedAt: number }).__renderedAt);
}

export async function measurePage(context: BrowserContext, spec: PageSpec): Promise<PageFigures> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const scripts = new Map<string, string>();
  const bytes = new Map<string, number>();
  cdp.on('Network.responseReceived', (event) => {
    if (event.type === 'Script') scripts.set(event.requestId, new URL(event.response.url).pathname);
  });
  cdp.on('Network.loadingFinished', (event) => bytes.set(event.requestId, event.encodedDataLength));
  try {
    const response = await page.goto(spec.url, { waitUntil: 'commit' });
    const html = (await response?.text()) ?? '';
    const navigationToRenderedMs = await renderedAt(page, spec.rendered);
    await page.waitForLoadState('networkidle');
    // Each URL's first answer is the data the page rendered from; later ones are polls and
    // refetches that may end after the render (on a slow page they would make the figure negative).
    const dataArrivedMs = await page.evaluate((prefixes) => {
      const first = new Map<string, number>();
      for (const entry of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
        if (!prefixes.some((prefix) => new URL(entry.name).pathname.startsWith(prefix))) continue;
        first.set(entry.name, Math.min(first.get(entry.name) ?? Infinity, entry.responseEnd));
      }
      return Math.max(0, ...first.values());
    }, spec.apiPaths);
    const inHtml = scriptPaths(html);
    let firstLoadJsBytes = 0;
    let lazyJsBytes = 0;
    for (const [requestId, path] of scripts) {
      const size = bytes.get(requestId) ?? 0;
      if (inHtml.has(path)) firstLoadJsBytes += size;
      else lazyJsBytes += size;
    }
    return { navigationToRenderedMs, renderedAfterDataMs: navigationToRenderedMs - dataArrivedMs, dataArrivedMs, firstLoadJsBytes, lazyJsBytes };
  } finally {
    await page.close();
  }
}

/** The reference: the same rows as a plain DOM table built by hand, in the same browser. */
export async function referenceTableMs(context: BrowserContext, rows: Array<Record<string, unknown>>): Promise<number> {
  const page = await context.newPage();
  try {
    await page.setContent('<!doctype html><html><body></body></html>');
    return await page.evaluate(async (data) => {
      const started = performance.now();
      const table = document.createElement('table');
      const body = table.createTBody();
      for (const row of data) {
        const tr = body.insertRow();
        for (const key of ['name', 'mode', 'provider', 'phase', 'ip', 'healthy', 'age']) tr.insertCell().textContent = String(row[key] ?? '');
      }
      document.body.append(table);
      void document.body.offsetHeight;
      await new Promise((resolve) => requestAnimationFrame(resolve));
      return performance.now() - started;
    }, rows);
  } finally {
    await page.close();
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export interface RowUpdateFigures {
  /** the stream's message event → the row's new text in the DOM */
  messageToDomMs: number;
  /** the stream's message event → the first frame after the DOM change */
  messageToFrameMs: number;
}

/**
 * A one-row update through the live stream on an open page: `publish(marker)` makes the server
 * send one Proxy's view with `marker` as its IP; the page notes when that message arrives (its
 * EventSource is wrapped before the app loads) and when the row's text changes (a MutationObserver).
 */
export async function rowUpdates(options: {
  context: BrowserContext;
  url: string;
  /** true once the page shows its rows */
  rendered: string;
  rowTestId: string;
  publish: (marker: string) => void;
  runs: number;
}): Promise<RowUpdateFigures[]> {
  const { context, url, rendered, rowTestId, publish, runs } = options;
  const page = await context.newPage();
  try {
    // In-page code goes as text: tsx would wrap named functions in a helper the page does not have.
    // The listener is registered before the app's onmessage, so it runs first.
    await page.addInitScript(`{
      const Native = window.EventSource;
      window.EventSource = class extends Native {
        constructor(source, init) {
          super(source, init);
          this.addEventListener('message', (event) => {
            if (window.__marker && event.data.includes(window.__marker)) window.__messageAt = performance.now();
          });
        }
      };
    }`);
    await page.goto(url);
    await page.waitForFunction(rendered, undefined, { polling: 'raf', timeout: 120_000 });
    await page.getByTestId('live-indicator').getByText('Live').waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    const figures: RowUpdateFigures[] = [];
    for (let run = 0; run < runs; run += 1) {
      const marker = `203.0.113.${run + 1}`;
      const done = page.evaluate(`new Promise((resolve) => {
        window.__marker = ${JSON.stringify(marker)};
        window.__messageAt = undefined;
        const observer = new MutationObserver(() => {
          const row = document.querySelector('[data-testid="${rowTestId}"]');
          if (!row || !row.textContent.includes(window.__marker)) return;
          const domAt = performance.now();
          observer.disconnect();
          requestAnimationFrame(() => resolve({ messageToDomMs: domAt - window.__messageAt, messageToFrameMs: performance.now() - window.__messageAt }));
        });
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      })`) as Promise<RowUpdateFigures>;
      // The observer is in place before the change is sent.
      await page.waitForFunction(`window.__marker === ${JSON.stringify(marker)}`);
      publish(marker);
      figures.push(await done);
    }
    return figures;
  } finally {
    await page.close();
  }
}
