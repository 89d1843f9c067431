// The Hosts page against the lab: both hosts Reachable with their pool's free space; the pool
// stopped on the hypervisor shows as PoolNotActive with its explanation at the next check (and is
// always started again); the host page lists the lab's pools, the inactive one as inactive.
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, loadLab, virsh } from '../lab/harness/lab';
import { screenshot } from './harness/browser';
import { firstProviderName, waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let lab: Lab;
let session: Session;

beforeAll(async () => {
  lab = loadLab();
  session = await openSession({ providersConfig: lab.providersConfig });
});

afterAll(async () => {
  await session?.close();
});

const hostCard = (name: string): Locator => session.page.getByTestId(`host-card-${name}`);

/** The card's reason badge and free space once a check has reported on it. */
async function waitForCardText(name: string, text: string, timeoutMs = 60_000): Promise<void> {
  await hostCard(name).getByText(text, { exact: false }).first().waitFor({ timeout: timeoutMs });
}

async function poolActive(): Promise<boolean> {
  const info = await virsh(['pool-info', lab.pool.name]);
  return /State:\s+running/.test(info);
}

describe('hosts', () => {
  it('shows both lab hosts Reachable with their pool free space', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/hosts`);
    await waitForData(page);
    for (const host of lab.hosts) {
      await waitForCardText(host.name, 'Reachable');
      const text = (await hostCard(host.name).textContent()) ?? '';
      expect(text).toMatch(/\d+\.\d GiB free of \d+\.\d GiB/);
      // Two hypervisors: Debian 12's libvirt on lab1, Debian 13's on lab2.
      expect(text).toContain(host.libvirtVersion);
      expect(host.libvirtVersion).toBe({ lab1: '9.0.0', lab2: '11.3.0' }[host.name]);
    }
    await screenshot(page, 'hosts');
  });

  it('shows PoolNotActive with its explanation after the pool is stopped, and Reachable once it runs again', async () => {
    const { page, app } = session;
    const host = lab.hosts[0]!;
    await page.goto(`${app.url}/hosts`);
    await waitForCardText(host.name, 'Reachable');
    await virsh(['pool-destroy', lab.pool.name]);
    try {
      await waitForCardText(host.name, 'Pool not active', 30_000);
      const explanation = hostCard(host.name).getByTestId('health-explanation');
      const text = (await explanation.textContent()) ?? '';
      expect(text).toContain('PoolNotActive');
      expect(text).toContain(`The storage pool ${lab.pool.name} exists but is not running`);
      expect(text).toContain(`virsh pool-start ${lab.pool.name}`);
      await screenshot(page, 'hosts-pool-not-active');
    } finally {
      if (!(await poolActive())) await virsh(['pool-start', lab.pool.name]);
    }
    await waitForCardText(host.name, 'Reachable', 30_000);
    await expect(hostCard(host.name).getByTestId('health-explanation').count()).resolves.toBe(0);
  });

  it("lists the host's pools on its page, the stopped pool as inactive", async () => {
    const { page, app } = session;
    const host = lab.hosts[0]!;
    await page.goto(`${app.url}/hosts/${firstProviderName(lab.providersConfig)}/${host.name}`);
    await waitForData(page);
    const active = page.getByTestId(`pool-row-${lab.pool.name}`);
    await active.waitFor({ timeout: 30_000 });
    await expect(active.textContent()).resolves.toContain('running');
    await expect(page.getByTestId(`pool-row-${lab.inactivePool.name}`).textContent()).resolves.toContain('inactive');
    await screenshot(page, 'host-detail');
  });
});
