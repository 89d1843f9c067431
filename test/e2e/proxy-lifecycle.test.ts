// A Proxy's life through the dashboard against the lab: the form refuses bad input in the browser
// and shows the server's refusal next to its field; a created Proxy appears as Provisioning and its
// domain on the host page, with CPU and traffic sparklines once sampled; Evict is refused for the
// base image it uses; a Proxy whose image comes from the image server's slow variant shows the
// download's progress live; Delete removes a Proxy's domain from the host; an image no VM uses any
// more can be evicted.
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { proxyViewSchema } from '@/lib/api/proxies';
import { type Lab, loadLab, virsh } from '../lab/harness/lab';
import { screenshot } from './harness/browser';
import { firstProviderName, waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let lab: Lab;
let session: Session;
let provider: string;
const proxyName = `e2e-${Date.now().toString(36)}`;
const downloadingName = `${proxyName}-dl`;
let instanceName = '';
let baseVolume = '';
let slowVolume = '';

beforeAll(async () => {
  lab = loadLab();
  provider = firstProviderName(lab.providersConfig);
  session = await openSession({ providersConfig: lab.providersConfig });
});

afterAll(async () => {
  if (session) {
    // Never leave a VM behind for the next test: delete through the API and wait for them to go.
    for (const name of [proxyName, downloadingName]) await session.api('DELETE', `/api/proxies/${name}`);
    for (const name of [proxyName, downloadingName]) {
      await vi
        .waitFor(async () => expect((await session!.api('GET', `/api/proxies/${name}`)).status()).toBe(404), { timeout: 120_000, interval: 1_000 })
        .catch(() => undefined);
    }
    await session.close();
  }
});

const hostPage = (host: string) => `${session.app.url}/hosts/${provider}/${host}`;
const labHost = () => lab.hosts[0]!.name;

/** Volume names in HOST's pool (lab1 by default): each lab host has its own. */
async function poolVolumes(host = labHost()): Promise<string[]> {
  return (await virsh(['vol-list', lab.pool.name], host))
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

function countPosts(page: Page): () => number {
  let posts = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/proxies') posts += 1;
  });
  return () => posts;
}

describe('a Proxy created through the dashboard', () => {
  it('refuses an invalid name and a missing network in the browser, without asking the server', async () => {
    const { page, app } = session;
    const posts = countPosts(page);
    await page.goto(`${app.url}/proxies/new`);
    await waitForData(page);
    await page.getByLabel('Name').fill('Not_A_Name');
    await page.getByRole('button', { name: 'Create Proxy' }).click();
    await page.locator('#proxy-name-error').waitFor();
    await expect(page.locator('#proxy-name-error').textContent()).resolves.toContain('DNS-1123');
    await expect(page.locator('#squid-networks-error').textContent()).resolves.toContain('at least one network');
    await expect(page.getByLabel('Name').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(posts()).toBe(0);
  });

  it("shows the server's refusal next to the field it names", async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/proxies/new`);
    await waitForData(page);
    // A provider removed from the config after the form loaded: only the server can know.
    await page.getByLabel('Provider').evaluate((select) => select.append(new Option('gone (kvm2)', 'gone')));
    await page.getByLabel('Provider').selectOption('gone');
    // No catalogue for an unknown provider: the form asks for the values as text.
    await page.getByLabel('Machine type').fill('small');
    await page.getByLabel('Image', { exact: true }).fill('lab');
    await page.getByLabel('Networks allowed to use the proxy').fill('198.18.0.0/15');
    await page.getByRole('button', { name: 'Create Proxy' }).click();
    await page.locator('#proxy-provider-error').waitFor({ timeout: 15_000 });
    await expect(page.locator('#proxy-provider-error').textContent()).resolves.toMatch(/gone|provider/i);
  });

  it('appears as Provisioning after Create, with the image and machine type preselected', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/proxies/new`);
    await waitForData(page);
    await expect(page.getByLabel('Provider').inputValue()).resolves.toBe(provider);
    await expect(page.getByLabel('Machine type').inputValue()).resolves.not.toBe('');
    await expect(page.getByLabel('Image', { exact: true }).inputValue()).resolves.not.toBe('');
    await page.getByLabel('Name').fill(proxyName);
    // Two lab hosts: the host is left to the server by default, and the form says which it would be.
    const zone = page.getByLabel('Host (zone)');
    await expect(zone.inputValue()).resolves.toBe('');
    await expect(zone.locator('option:checked').textContent()).resolves.toBe('Best host (automatic)');
    await page.getByText(/^Right now that would be lab[12]: [\d.]+ GiB free, [\d.]+ GiB memory free, \d+ VMs? \(spread\)\.$/).waitFor({ timeout: 20_000 });
    await zone.selectOption(labHost());
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.getByLabel('Label 1 key').fill('pool');
    await page.getByLabel('Label 1 value').fill('e2e');
    await page.getByLabel('Networks allowed to use the proxy').fill('198.18.0.0/15, 127.0.0.1');
    await page.getByText('Show the generated cloud-init').click();
    const preview = (await page.getByTestId('squid-preview').textContent()) ?? '';
    expect(preview).toContain('acl allowed_clients src 198.18.0.0/15');
    expect(preview).not.toMatch(/http_access allow all$/m);
    await screenshot(page, 'proxy-create-form');
    await page.getByRole('button', { name: 'Create Proxy' }).click();
    await page.waitForURL((url) => url.pathname === `/proxies/${proxyName}`, { timeout: 30_000 });
    await page.getByText('Provisioning', { exact: true }).first().waitFor({ timeout: 120_000 });
    const view = proxyViewSchema.parse(await (await session.api('GET', `/api/proxies/${proxyName}`)).json());
    instanceName = view.instanceName ?? '';
    expect(instanceName).not.toBe('');
    await screenshot(page, 'proxy-detail');
    await page.goto(`${app.url}/proxies`);
    await expect(page.getByTestId(`proxy-row-${proxyName}`).textContent()).resolves.toContain('Provisioning');
    await screenshot(page, 'proxies');
  });

  it("shows its domain on the host's page as managed, linked to the Proxy", async () => {
    const { page } = session;
    await page.goto(hostPage(labHost()));
    const row = page.getByTestId(`domain-row-${instanceName}`);
    await row.waitFor({ timeout: 120_000 });
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('managed');
    expect(text).toContain(proxyName);
    // Once sampled (every 2 s here), its CPU and traffic over the last hour as sparklines in the row.
    const activity = row.getByTestId(`domain-activity-${instanceName}`);
    await activity.waitFor({ timeout: 60_000 });
    // Both lines drawn (a path with points each) once a sample with rates has arrived: poll for them.
    await expect.poll(() => activity.locator('[data-testid="sparkline"] path[d^="M"]').count(), { timeout: 15_000 }).toBe(2);
    await expect(activity.getByRole('img', { name: /^CPU over the last hour, now / }).count()).resolves.toBe(1);
  });

  it('refuses to evict the base image the Proxy uses: the button is disabled with the reason, the API answers 409', async () => {
    const { page } = session;
    await page.goto(hostPage(labHost()));
    const inUse = page.locator('[data-testid^="image-row-"]', { hasText: 'In use by' }).first();
    await inUse.waitFor({ timeout: 60_000 });
    baseVolume = ((await inUse.getAttribute('data-testid')) ?? '').replace('image-row-', '');
    const evict = inUse.getByRole('button', { name: /Evict/ });
    await expect(evict.isDisabled()).resolves.toBe(true);
    await expect(inUse.textContent()).resolves.toContain('delete those Proxies first');
    await screenshot(page, 'host-detail-with-proxy');
    const refused = await session.api('DELETE', `/api/providers/${provider}/hosts/${labHost()}/images/${baseVolume}`);
    expect(refused.status()).toBe(409);
    expect(await poolVolumes()).toContain(baseVolume);
  });

  it('shows the base image download live (bytes, rate, time left) while a Proxy waits for it', async () => {
    const { page, app } = session;
    const slowUrl = `${lab.imageServer.url}/variants/slow.qcow2`;
    // The spec's name for a URL image's cache: base-<entry>-<first 16 hex of the URL's sha256>.qcow2
    slowVolume = `base-${provider}-${createHash('sha256').update(slowUrl).digest('hex').slice(0, 16)}.qcow2`;
    if ((await poolVolumes(lab.hosts[1]!.name)).includes(slowVolume)) {
      // Cached by an earlier run: evict it so this Proxy has to download it.
      expect((await session.api('DELETE', `/api/providers/${provider}/hosts/${lab.hosts[1]!.name}/images/${slowVolume}`)).status()).toBe(200);
    }
    await page.goto(`${app.url}/proxies/new`);
    await waitForData(page);
    await page.getByLabel('Name').fill(downloadingName);
    await page.getByLabel('Host (zone)').selectOption(lab.hosts[1]!.name);
    await page.getByLabel('Image', { exact: true }).selectOption({ label: 'Another image by URL…' });
    await page.getByLabel('Image URL').fill(slowUrl);
    await page.getByLabel('Networks allowed to use the proxy').fill('198.18.0.0/15');
    await page.getByRole('button', { name: 'Create Proxy' }).click();
    await page.waitForURL((url) => url.pathname === `/proxies/${downloadingName}`, { timeout: 30_000 });
    const progress = page.getByTestId('download-progress');
    await progress.waitFor({ timeout: 60_000 });
    await progress.filter({ hasText: /\d+(\.\d)? KiB of 192 KiB \(\d+%\) · [\d.]+ (B|KiB)\/s · (\d+s left|\d+m \d+s left)/ }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'proxy-downloading-image');
    // The host's page lists the same download, from the host listing.
    const hostTab = await page.context().newPage();
    await hostTab.goto(hostPage(lab.hosts[1]!.name));
    await hostTab.getByTestId('host-downloads').getByText(slowVolume).waitFor({ timeout: 20_000 });
    await hostTab.close();
    // The transfer ends (the variant drips for about 25 s) and the panel goes.
    await progress.waitFor({ state: 'detached', timeout: 90_000 });
    expect(await poolVolumes(lab.hosts[1]!.name)).toContain(slowVolume);
    expect(await poolVolumes()).not.toContain(slowVolume); // lab1 is another hypervisor
    const deleted = await session.api('DELETE', `/api/proxies/${downloadingName}`);
    expect(deleted.status()).toBe(202);
  });

  it('is gone from the host after Delete', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/proxies/${proxyName}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.textContent()).resolves.toContain('destroys the VM');
    await dialog.getByRole('button', { name: 'Delete Proxy' }).click();
    await page.waitForURL((url) => url.pathname === '/proxies');
    await page.goto(hostPage(labHost()));
    await waitForData(page);
    // The page polls the host every 5 s; the domain goes once the reconciler has deleted it.
    await expect.poll(() => page.getByTestId(`domain-row-${instanceName}`).count(), { timeout: 120_000, interval: 1_000 }).toBe(0);
    const domains = await virsh(['list', '--all', '--name']);
    expect(domains.split('\n').map((line) => line.trim())).not.toContain(instanceName);
  });

  it('evicts a base image no VM uses: marker and image leave the pool', async () => {
    const { page } = session;
    await expect.poll(async () => (await session.api('GET', `/api/proxies/${downloadingName}`)).status(), { timeout: 120_000, interval: 1_000 }).toBe(404);
    await page.goto(hostPage(lab.hosts[1]!.name));
    const row = page.getByTestId(`image-row-${slowVolume}`);
    await row.waitFor({ timeout: 30_000 });
    await expect.poll(() => row.getByRole('button', { name: /Evict/ }).isDisabled(), { timeout: 60_000, interval: 1_000 }).toBe(false);
    await row.getByRole('button', { name: /Evict/ }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.textContent()).resolves.toContain('digest marker first');
    await dialog.getByRole('button', { name: 'Evict image' }).click();
    await row.waitFor({ state: 'detached', timeout: 30_000 });
    const volumes = await poolVolumes(lab.hosts[1]!.name);
    expect(volumes).not.toContain(slowVolume);
    expect(volumes).not.toContain(`${slowVolume}.sha256`);
    expect(await poolVolumes()).toContain(baseVolume);
  });
});
