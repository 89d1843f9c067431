// The serial console on the proxy page, in Chromium against the lab: the terminal (xterm.js) shows
// the VM's console output, with no Content-Security-Policy violation; while another client holds
// the console (as `virsh console` does) the page says so and offers Take over, which brings it
// back live and disconnects that client; what is typed in the terminal reaches the guest (OVMF's
// UEFI shell echoes a command and runs it).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import { DomainConsoleFlags, isLibvirtError, type DuplexStream, type LibvirtClient } from '@/server/libvirt';
import { type Lab, loadLab } from '../lab/harness/lab';
import { consoleEnd, openOverSsh } from '../lab/rpc-lab-support';
import { screenshot } from './harness/browser';
import { firstProviderName } from './harness/dashboard';
import { deleteProxyAndWait, openSession, type Session } from './harness/session';

let lab: Lab;
let session: Session;
let other: LibvirtClient | undefined;
const proxyName = `e2e-con-${Date.now().toString(36)}`;
const violations: string[] = [];
const consoleScreenshots: string[] = [];

beforeAll(async () => {
  lab = loadLab();
  session = await openSession({ providersConfig: lab.providersConfig });
  session.page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await session.page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`Refused by the Content Security Policy: ${event.violatedDirective} blocked ${event.blockedURI}`),
    );
  });
  const created = await session.api('POST', '/api/proxies', {
    name: proxyName,
    mode: 'Managed',
    provider: firstProviderName(lab.providersConfig),
    placement: { zone: lab.hosts[0]!.name, machineType: 'small', image: 'lab' },
    cloudInit: '#cloud-config\n',
  });
  expect(created.status()).toBe(201);
});

afterAll(async () => {
  console.log(`screenshots: ${consoleScreenshots.join(', ')}`);
  await other?.close();
  if (session) {
    await deleteProxyAndWait(session, proxyName);
    await session.close();
  }
});

// xterm.js stops drawing a terminal that is out of view, so look at it the way an admin does.
const terminalText = async (page: Page) => {
  const terminal = page.getByTestId('console-terminal');
  await terminal.scrollIntoViewIfNeeded();
  return terminal.locator('.xterm-rows').innerText();
};
const consoleState = (page: Page) => page.locator('[data-console-state]').getAttribute('data-console-state');

describe('the serial console on the proxy page', () => {
  it('shows the VM console output in a terminal, under the CSP', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/proxies/${proxyName}`);
    await page.getByRole('heading', { name: 'Serial console' }).waitFor({ timeout: 30_000 });
    await vi.waitFor(async () => expect(await consoleState(page)).toBe('live'), { timeout: 120_000, interval: 500 });
    // OVMF finds nothing to boot on the lab image and starts its UEFI shell on the serial console.
    await vi.waitFor(async () => expect(await terminalText(page)).toContain('UEFI Interactive Shell'), { timeout: 150_000, interval: 1_000 });
    consoleScreenshots.push(await screenshot(page, 'proxy-console-terminal'));
    expect(violations).toEqual([]);
  });

  let held: DuplexStream;
  it('says another client holds the console, and Take over brings it back', async () => {
    const { page } = session;
    other = await openOverSsh(lab, { host: lab.hosts[0] });
    held = await other.domainOpenConsole({ dom: await other.domainLookupByName({ name: instanceName(proxyName) }), flags: DomainConsoleFlags.Force });
    // Our session ended; Reconnect asks again without force and finds it held.
    await page.getByRole('button', { name: 'Reconnect' }).click({ timeout: 30_000 });
    await page.getByText('Another client holds the console').waitFor({ timeout: 30_000 });
    await expect(page.locator('[data-console-state]').innerText()).resolves.toMatch(/on host lab1.*"take over" disconnects that client/s);
    consoleScreenshots.push(await screenshot(page, 'proxy-console-busy'));
    const otherEnded = consoleEnd(held);
    await page.getByRole('button', { name: 'Take over' }).click();
    await vi.waitFor(async () => expect(await consoleState(page)).toBe('live'), { timeout: 30_000, interval: 250 });
    expect(isLibvirtError(await otherEnded, 'ErrRPC')).toBe(true);
    // Typing reaches the guest: OVMF's UEFI shell echoes the command and runs it.
    // Enter ends the shell's startup countdown or gives a fresh prompt: one more `Shell>` either way.
    const prompts = async () => (await terminalText(page)).split('Shell>').length - 1;
    const before = await prompts();
    await page.getByTestId('console-terminal').click();
    await page.keyboard.press('Enter');
    await vi.waitFor(async () => expect(await prompts()).toBeGreaterThan(before), { timeout: 60_000, interval: 500 });
    await page.keyboard.type('echo typed-in-browser');
    await page.keyboard.press('Enter');
    await vi.waitFor(async () => expect(await terminalText(page)).toMatch(/echo typed-in-browser\s*\n\s*typed-in-browser/), { timeout: 60_000, interval: 500 });
    consoleScreenshots.push(await screenshot(page, 'proxy-console-typed'));
    expect(violations).toEqual([]);
  });
});
