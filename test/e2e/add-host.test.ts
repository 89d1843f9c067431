// Adding a hypervisor from the browser against the lab: from a providers config with lab1 only and
// a known_hosts file without lab2, the Add host wizard fetches lab2's key (the fingerprint
// ssh-keygen prints on the host), trusts it once confirmed, logs in, opens libvirt 11.3, offers the
// pool and the bridge, reads KVM and UEFI, runs the health check and saves; lab2 turns Reachable on
// the Hosts page and a Proxy runs on it; removing lab2 then is refused naming that Proxy. A user
// outside the libvirt group gets the Forbidden fix. A host whose key differs from the known one
// shows the mismatch warning: the swapped key is a known_hosts file (of a new provider entry)
// holding another ed25519 key under lab2's address, as after a reinstall or with a man in the middle.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseDocument } from 'yaml';
import { proxyViewSchema } from '@/lib/api/proxies';
import { generateKey } from '@/test/unit/ssh-harness';
import { type Lab, type LabHost, loadLab, virsh } from '../lab/harness/lab';
import { screenshot, seriousAxeViolations } from './harness/browser';
import { waitForData } from './harness/dashboard';
import { deleteProxyAndWait, openSession, type Session } from './harness/session';

let lab: Lab;
let session: Session;
let scratch: string;
let configPath: string;
let knownHostsPath: string;
const proxyName = `e2e-addhost-${Date.now().toString(36)}`;

const hostOf = (name: string): LabHost => lab.hosts.find((host) => host.name === name)!;
const fingerprintOnHost = (host: LabHost) =>
  execFileSync('ssh-keygen', ['-lf', join(lab.dir, 'ssh', host.name, 'ssh_host_ed25519_key.pub')], { encoding: 'utf8' }).split(' ')[1]!;

beforeAll(async () => {
  lab = loadLab();
  scratch = mkdtempSync(join(tmpdir(), 'kvm2-e2e-addhost-'));
  knownHostsPath = join(scratch, 'known_hosts');
  writeFileSync(knownHostsPath, `${readFileSync(lab.knownHostsFile, 'utf8').split('\n')[0]}\n`, { mode: 0o600 });
  const document = parseDocument(readFileSync(lab.providersConfig, 'utf8'));
  document.setIn([0, 'kvm2', 'knownHostsFile'], knownHostsPath);
  document.deleteIn([0, 'kvm2', 'hosts', 1]);
  configPath = join(scratch, 'providers.yaml');
  writeFileSync(configPath, document.toString());
  session = await openSession({ providersConfig: configPath });
});

afterAll(async () => {
  if (session) {
    await deleteProxyAndWait(session, proxyName);
    await session.close();
  }
  rmSync(scratch, { recursive: true, force: true });
});

const step = (name: string): Locator => session.page.getByTestId(`setup-step-${name}`);
const waitForStep = (name: string, state: 'ok' | 'failed', timeout = 60_000) =>
  session.page.locator(`[data-testid="setup-step-${name}"][data-state="${state}"]`).waitFor({ timeout });

async function openWizard(fields: { name: string; address: string; user: string }): Promise<void> {
  const { page, app } = session;
  await page.goto(`${app.url}/hosts`);
  await waitForData(page);
  await page.getByRole('button', { name: 'Add host' }).click();
  await page.getByLabel('Host name').fill(fields.name);
  await page.getByLabel('Address').fill(fields.address);
  await page.getByLabel('SSH user').fill(fields.user);
}

describe('adding a host from the dashboard', () => {
  it('adds lab2 step by step: host key confirmed, pool and bridge picked, health check Reachable, saved', async () => {
    const { page } = session;
    const lab2 = hostOf('lab2');
    await page.goto(`${session.app.url}/hosts`);
    await page.getByTestId('host-card-lab1').getByText('Reachable').first().waitFor({ timeout: 60_000 });
    await expect(page.getByTestId('host-card-lab2').count()).resolves.toBe(0);

    await openWizard({ name: 'lab2', address: lab2.address, user: lab.user });
    await expect(page.getByLabel('Provider entry').inputValue()).resolves.toBe('lab');
    await page.getByRole('button', { name: 'Fetch host key' }).click();
    await page.getByTestId('host-key-fingerprint').waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('host-key-fingerprint').textContent()).resolves.toBe(fingerprintOnHost(lab2));
    await expect(step('hostKey').textContent()).resolves.toContain('ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub');
    // Nothing is written before the admin confirms.
    expect(readFileSync(knownHostsPath, 'utf8').trim().split('\n')).toHaveLength(1);
    await screenshot(page, 'add-host-key');
    await page.getByRole('button', { name: 'The fingerprints match: trust this key' }).click();
    await page.getByText('The key is in the known_hosts file.').waitFor({ timeout: 30_000 });
    expect(readFileSync(knownHostsPath, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(readFileSync(knownHostsPath, 'utf8')).not.toContain(lab2.host);

    await page.getByRole('button', { name: 'Continue: log in and look at the host' }).click();
    for (const name of ['authenticate', 'libvirt', 'resources', 'capabilities']) await waitForStep(name, 'ok');
    await expect(step('libvirt').textContent()).resolves.toContain('libvirt 11.3.0');
    await expect(step('capabilities').textContent()).resolves.toContain('software emulation');
    await expect(page.getByLabel('Storage pool').inputValue()).resolves.toBe(lab.pool.name);
    await expect(page.getByLabel('Virtualisation').inputValue()).resolves.toBe('qemu');
    await page.getByLabel('Storage pool').selectOption(lab.pool.name);
    await page.getByLabel('Bridge').selectOption(lab.bridge);
    await page.getByRole('button', { name: 'Run the health check' }).click();
    await waitForStep('check', 'ok');
    await expect(step('resources').textContent()).resolves.toContain('2 storage pools, 1 bridge');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await screenshot(page, 'add-host-checked');
    await page.getByRole('button', { name: 'Save host' }).click();

    await page.getByTestId('host-card-lab2').getByText('Reachable').first().waitFor({ timeout: 60_000 });
    await expect(page.getByTestId('host-card-lab2').textContent()).resolves.toContain('11.3.0');
    const saved = readFileSync(configPath, 'utf8');
    expect(saved).toContain(
      `      - name: lab2\n        address: ${lab2.address}\n        user: ${lab.user}\n        bridge: ${lab.bridge}\n        pool: ${lab.pool.name}\n        virtType: qemu\n`,
    );
    expect(existsSync(`${configPath}.bak`)).toBe(true);
    await screenshot(page, 'add-host-saved');
  });

  it("edits the added host in place: only its pool's line changes, and the next check follows", async () => {
    const { page } = session;
    const before = readFileSync(configPath, 'utf8');
    const edit = async (pool: string) => {
      await page.getByRole('button', { name: 'Edit host lab2' }).click();
      await page.getByLabel('Storage pool', { exact: true }).fill(pool);
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('button', { name: 'Save changes' }).waitFor({ state: 'hidden', timeout: 30_000 });
    };
    await page.goto(`${session.app.url}/hosts`);
    await edit(lab.inactivePool.name);
    const lab2Lines = (pool: string) =>
      `      - name: lab2\n        address: ${hostOf('lab2').address}\n        user: ${lab.user}\n        bridge: ${lab.bridge}\n        pool: ${pool}\n`;
    expect(before).toContain(lab2Lines(lab.pool.name));
    expect(readFileSync(configPath, 'utf8')).toBe(before.replace(lab2Lines(lab.pool.name), lab2Lines(lab.inactivePool.name)));
    await page.getByTestId('host-card-lab2').getByText('Pool not active').first().waitFor({ timeout: 60_000 });
    await edit(lab.pool.name);
    expect(readFileSync(configPath, 'utf8')).toBe(before);
    await page.getByTestId('host-card-lab2').getByText('Reachable').first().waitFor({ timeout: 60_000 });
  });

  it('runs a Proxy on the added host, and refuses to remove the host while it has one, naming it', async () => {
    const { page } = session;
    const created = await session.api('POST', '/api/proxies', {
      name: proxyName,
      mode: 'Managed',
      provider: 'lab',
      placement: { zone: 'lab2', machineType: 'small', image: 'lab' },
      cloudInit: '#cloud-config\n',
    });
    expect(created.status(), await created.text()).toBe(201);
    let domain = '';
    await vi.waitFor(
      async () => {
        domain = proxyViewSchema.parse(await (await session.api('GET', `/api/proxies/${proxyName}`)).json()).instanceName ?? '';
        expect((await virsh(['domstate', domain], 'lab2')).trim()).toBe('running');
      },
      { timeout: 150_000, interval: 1_000 },
    );
    await page.goto(`${session.app.url}/hosts`);
    await page.getByRole('button', { name: 'Remove host lab2' }).click();
    await page.getByRole('button', { name: 'Remove host', exact: true }).click();
    await page.getByText(`host "lab2" still has Proxies: ${proxyName}`).waitFor({ timeout: 30_000 });
    expect(readFileSync(configPath, 'utf8')).toContain('- name: lab2');
  });

  it('shows the Forbidden fix for a user outside the libvirt group', async () => {
    const { page } = session;
    const lab1 = hostOf('lab1');
    await openWizard({ name: 'lab1-nolv', address: lab1.address, user: lab.nonLibvirtUser });
    await page.getByRole('button', { name: 'Fetch host key' }).click();
    await page.getByText('The key is in the known_hosts file.').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Continue: log in and look at the host' }).click();
    await waitForStep('authenticate', 'ok');
    await waitForStep('libvirt', 'failed');
    const text = (await step('libvirt').textContent()) ?? '';
    expect(text).toContain('Forbidden');
    expect(text).toContain(`usermod -aG libvirt ${lab.nonLibvirtUser}`);
    await screenshot(page, 'add-host-forbidden');
  });

  it('warns when the host presents a key other than the known one, and offers no way to trust it', async () => {
    const { page } = session;
    const lab2 = hostOf('lab2');
    const swapped = join(scratch, 'known_hosts.swapped');
    writeFileSync(swapped, `[${lab2.host}]:${lab2.port} ${generateKey().publicFields}\n`);
    const before = readFileSync(swapped, 'utf8');
    await openWizard({ name: 'lab2-swapped', address: lab2.address, user: lab.user });
    await page.getByLabel('Provider entry').selectOption({ label: 'New provider entry…' });
    await page.getByLabel('New provider name').fill('other');
    await page.getByLabel('SSH key file on this server').fill(lab.sshKeyFile);
    await page.getByLabel('known_hosts file on this server').fill(swapped);
    await page.getByRole('button', { name: 'Fetch host key' }).click();
    await page.getByTestId('host-key-mismatch').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('host-key-mismatch').textContent()).toContain('differs from the one known');
    await expect(step('hostKey').textContent()).resolves.toContain('never replaced');
    await expect(page.getByRole('button', { name: 'The fingerprints match: trust this key' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Continue: log in and look at the host' }).count()).resolves.toBe(0);
    expect(readFileSync(swapped, 'utf8')).toBe(before);
    await screenshot(page, 'add-host-mismatch');
  });
});
