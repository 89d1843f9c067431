// A set through the dashboard against the lab: created with the preview of where its members would
// go, its members appear spread over the two hypervisors, + scales it, and an edit of its cloud-init
// shows a YAML mistake inline (Save refused) until fixed, says it will replace every member rolling,
// and the rolling change starts. Lab VMs have no OS and never become Ready, so the rollout is seen
// starting (a surge member from the new template), not finishing. A plain Proxy's edit page says
// what a change does before Save (labels only: nothing replaced; the port: the VM replaced).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { proxyListSchema, proxyViewSchema } from '@/lib/api/proxies';
import { proxySetViewSchema } from '@/lib/api/proxysets';
import { type Lab, loadLab } from '../lab/harness/lab';
import { screenshot } from './harness/browser';
import { waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let lab: Lab;
let session: Session;
const setName = `e2es-${Date.now().toString(36)}`;
const proxyName = `${setName}-plain`;

beforeAll(async () => {
  lab = loadLab();
  session = await openSession({ providersConfig: lab.providersConfig });
});

afterAll(async () => {
  if (!session) return;
  // Never leave VMs behind: the set's deletion deletes its members; wait until they are gone.
  await session.api('DELETE', `/api/proxysets/${setName}`);
  await session.api('DELETE', `/api/proxies/${proxyName}`);
  await vi
    .waitFor(
      async () => {
        const list = proxyListSchema.parse(await (await session.api('GET', `/api/proxies?labels=proxyset=${setName}`)).json());
        expect(list.proxies).toEqual([]);
        expect((await session.api('GET', `/api/proxies/${proxyName}`)).status()).toBe(404);
      },
      { timeout: 120_000, interval: 1_000 },
    )
    .catch(() => undefined);
  await session.close();
});

const memberRows = (page: Page) => page.locator(`[data-testid^="proxy-row-${setName}-"]`);

describe('a set through the dashboard', () => {
  it('is created with a preview spreading its members over both hosts, and its members appear', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/sets/new`);
    await waitForData(page);
    await page.getByLabel('Name').fill(setName);
    await page.getByLabel('Replicas').fill('2');
    await page.getByLabel('Networks allowed to use the proxy').fill('198.18.0.0/15');
    const preview = page.getByTestId('set-preview');
    await preview.getByText('All 2 members have a host now, spread as shown.').waitFor({ timeout: 20_000 });
    for (const host of lab.hosts.slice(0, 2)) await expect(preview.getByTestId(`host-share-${host.name}`).textContent()).resolves.toContain('1 member');
    await screenshot(page, 'set-create-form');
    await page.getByRole('button', { name: 'Create set' }).click();
    await page.waitForURL((url) => url.pathname === `/sets/${setName}`, { timeout: 30_000 });
    await expect.poll(() => memberRows(page).count(), { timeout: 60_000, interval: 500 }).toBe(2);
    await expect(page.getByTestId('set-desired').textContent()).resolves.toBe('2');
    // One member per hypervisor, as the preview said.
    for (const host of lab.hosts.slice(0, 2))
      await page.getByTestId(`host-share-${host.name}`).getByText('1 member', { exact: false }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'set-detail');
  });

  it('scales to 3 with +, and the third member appears', async () => {
    const { page } = session;
    await page.getByRole('button', { name: 'One member more' }).click();
    await page.getByTestId('set-replicas').getByText('3 wanted').waitFor({ timeout: 10_000 });
    await expect.poll(() => memberRows(page).count(), { timeout: 60_000, interval: 500 }).toBe(3);
    await page.goto(`${session.app.url}/sets`);
    await expect(page.getByTestId(`set-row-${setName}`).getByTestId('set-desired').textContent()).resolves.toBe('3');
  });

  it('shows a cloud-init mistake inline and refuses to save it, then rolls the fixed change', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/sets/${setName}/edit`);
    await waitForData(page);
    await page.getByLabel('My own cloud-init').check();
    const editor = page.getByLabel('cloud-init user-data');
    const check = page.getByTestId('cloud-init-check');
    await editor.fill('packages:\n  - squid\n');
    await check.getByText(/line 1 must be "#cloud-config"/).waitFor();
    await editor.fill('#cloud-config\npackages:\n  - squid\n runcmd: [\n');
    await check.getByText(/^YAML error on line 4, column \d+: /).waitFor();
    await expect(editor.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByRole('button', { name: 'Save' }).isDisabled()).resolves.toBe(true);
    await screenshot(page, 'set-edit-yaml-error');
    await editor.fill('#cloud-config\npackages:\n  - squid\nruncmd:\n  - [systemctl, restart, squid]\n');
    await check.getByText('Looks right: cloud-config (YAML).').waitFor();
    const plan = page.getByTestId('set-plan');
    await plan.getByText('Rolling replacement of 3 members', { exact: false }).waitFor({ timeout: 15_000 });
    await screenshot(page, 'set-edit-plan');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((url) => url.pathname === `/sets/${setName}`, { timeout: 30_000 });
    // make-before-break: a member from the new template is made next to the 3 old ones, none deleted
    // (none of them can become Ready on the lab).
    await page
      .getByTestId('set-rollout')
      .getByText(/Rolling change in progress: [01] of 3 members from the new template/)
      .waitFor({ timeout: 30_000 });
    await expect.poll(() => memberRows(page).count(), { timeout: 60_000, interval: 500 }).toBe(4);
    await page
      .getByTestId('set-rollout')
      .getByText('Rolling change in progress: 1 of 3 members from the new template', { exact: false })
      .waitFor({ timeout: 30_000 });
    await page.getByTestId('set-events').getByText('SpecUpdated', { exact: true }).first().waitFor({ timeout: 15_000 });
    await screenshot(page, 'set-rolling');
  });
});

describe("a Proxy's edit page", () => {
  it('says what each change does before Save, checks cloud-init inline, and saves a labels-only change', async () => {
    const { page, app } = session;
    const { template } = proxySetViewSchema.parse(await (await session.api('GET', `/api/proxysets/${setName}`)).json());
    const created = await session.api('POST', '/api/proxies', {
      name: proxyName,
      mode: 'Managed',
      provider: template.provider,
      placement: { zone: lab.hosts[0]!.name, machineType: template.placement.machineType, image: template.placement.image },
    });
    expect(created.status()).toBe(201);
    await page.goto(`${app.url}/proxies/${proxyName}/edit`);
    await waitForData(page);
    const summary = page.getByTestId('change-summary');
    await summary.getByText('Nothing changes', { exact: false }).waitFor();
    await expect(page.getByRole('button', { name: 'Save' }).isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.getByLabel('Label 1 key').fill('pool');
    await page.getByLabel('Label 1 value').fill('e2e');
    await summary.getByText('Labels only: the VM is not replaced', { exact: false }).waitFor();
    await page.getByRole('textbox', { name: 'Port' }).fill('8080');
    await summary.getByText('The VM is replaced (port changed)', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Save and replace the VM' }).waitFor();
    await page.getByRole('textbox', { name: 'Port' }).fill('3128');
    await page.getByLabel('My own cloud-init').check();
    const editor = page.getByLabel('cloud-init user-data');
    await editor.fill('#cloud-config\nwrite_files: [\n');
    await page
      .getByTestId('cloud-init-check')
      .getByText(/^YAML error on line 3, column \d+: /)
      .waitFor();
    await editor.fill('#!/bin/sh\necho hello > /etc/motd\n');
    await page.getByTestId('cloud-init-check').getByText('Looks right: script.').waitFor();
    await page.getByText('Show the user-data the VM will get').click();
    await expect(page.getByTestId('user-data-preview').textContent()).resolves.toBe('#!/bin/sh\necho hello > /etc/motd\n');
    await summary.getByText('The VM is replaced (cloud-init changed)', { exact: false }).waitFor();
    await screenshot(page, 'proxy-edit');
    await page.getByRole('radio', { name: /^None/ }).check();
    await summary.getByText('Labels only', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/proxies/${proxyName}`, { timeout: 30_000 });
    const saved = proxyViewSchema.parse(await (await session.api('GET', `/api/proxies/${proxyName}`)).json());
    expect(saved.labels).toEqual({ pool: 'e2e' });
    expect(saved.port).toBe(3128);
  });
});
