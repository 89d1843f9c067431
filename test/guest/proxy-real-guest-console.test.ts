// A real guest's serial console through the HTTP API and on the proxy page, on lab1: boot capture
// opens it from the VM's first start, so once the Proxy is Ready the buffered console shows the
// whole boot (the kernel, cloud-init's stages, the guest agent the vendor-data script started)
// and the login prompt on ttyS0; a keystroke typed through the API reaches the guest, which
// answers with a fresh prompt; the page's terminal shows the same (screenshot).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from '@/test/e2e/harness/browser';
import { logIn } from '@/test/e2e/harness/dashboard';
import { guestProviders } from './harness/guest-lab';
import { GuestProxy, guestSessionForFile } from './harness/guest-proxy';
import { squidCloudInit } from './harness/proxy-guest';

const bootTimeoutMs = 15 * 60_000;
const session = guestSessionForFile();
const host = 'lab1';
const name = `guest-console-${host}`;
const loginPrompt = /\S+ login: /;

describe('the serial console of a Proxy on a real Debian guest (UEFI, lab1)', () => {
  let proxy: GuestProxy;

  beforeAll(() => {
    proxy = new GuestProxy(session(), {
      name,
      host,
      provider: guestProviders.withAgent,
      firmware: 'uefi',
      cloudInit: squidCloudInit(),
      variant: `console-${host}`,
    });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('holds the boot from the first start: kernel, cloud-init, the agent step and the login prompt', async () => {
    await proxy.create();
    await proxy.waitForReady(bootTimeoutMs);
    const deadline = Date.now() + 5 * 60_000;
    let text = '';
    // The login prompt follows cloud-init's final stage; wait for it on the console itself.
    while (!loginPrompt.test(text) && Date.now() < deadline) {
      text = (await session().api.consoleStart(name)).text;
      if (!loginPrompt.test(text)) await new Promise((resolve) => setTimeout(resolve, 3_000));
    }
    console.log(`console of ${name} (${text.length} characters), last lines:\n${text.split('\n').slice(-15).join('\n')}`);
    expect(text).toMatch(loginPrompt);
    expect(text).toMatch(/Linux version \d+\.\d+/);
    expect(text).toMatch(/Cloud-init v\. [\d.]+ running 'init-local'/);
    expect(text).toMatch(/Cloud-init v\. [\d.]+ running 'modules:final'/);
    // The vendor-data script started the agent (its own output goes to cloud-init-output.log only).
    expect(text).toMatch(/Started \S*qemu-guest-agent\.service/);
    expect(text).toMatch(/Cloud-init v\. [\d.]+ finished at/);
    expect(text).toContain('Debian GNU/Linux 12');
  });

  it('takes keystrokes: Enter at the login prompt brings a fresh one', async () => {
    const prompts = (text: string) => text.match(new RegExp(loginPrompt.source, 'g'))?.length ?? 0;
    const before = await session().api.consoleStart(name);
    expect(before.status).toEqual({ state: 'live' });
    await session().api.consoleInput(name, '\r');
    const deadline = Date.now() + 60_000;
    let after = before.text;
    while (prompts(after) <= prompts(before.text) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      after = (await session().api.consoleStart(name)).text;
    }
    expect(prompts(after)).toBeGreaterThan(prompts(before.text));
  });

  it('shows the boot log and the prompt in the terminal on the proxy page', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ height: 1400 });
      await logIn(page, { url: session().app.url, password: session().app.password });
      await page.goto(`${session().app.url}/proxies/${name}`);
      const rows = page.getByTestId('console-terminal').locator('.xterm-rows');
      await expect.poll(async () => rows.innerText(), { timeout: 60_000, interval: 500 }).toMatch(loginPrompt);
      console.log(`screenshot: ${await screenshot(page, 'guest-console-login-prompt')}`);
    } finally {
      await browser.close();
    }
  });
});
