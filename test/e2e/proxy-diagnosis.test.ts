// The diagnosis in the browser against the lab: a Proxy whose domain boots no OS (its console shows
// the firmware only) stays Provisioning;
// once it has not been Ready for longer than the threshold (the page's clock moved on), the Proxies
// table links "why?", which leads to the checklist on its page with the failing step first, as the
// API reports it; "Run again" runs it anew. A screenshot of the checklist is kept. A Ready Proxy
// (Static, at the lab image server, which answers HTTP) runs it only when asked.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { diagnosisSchema } from '@/lib/api/diagnosis';
import { proxyViewSchema } from '@/lib/api/proxies';
import { explainNotReadyAfterMs } from '@/components/proxies/diagnosis-view';
import { screenshot } from './harness/browser';
import { firstProviderName, waitForData } from './harness/dashboard';
import { deleteProxyAndWait, openSession, type Session } from './harness/session';
import { loadLab } from '../lab/harness/lab';

let session: Session;
const proxyName = `e2e-diag-${Date.now().toString(36)}`;
const readyName = `${proxyName}-ready`;

beforeAll(async () => {
  const lab = loadLab();
  // Probes every 2 s, so the Static proxy is Ready within seconds.
  session = await openSession({ providersConfig: lab.providersConfig, env: { PROBE_INTERVAL: '2s' } });
  const imageServer = new URL(lab.imageServer.url);
  const ready = await session.api('POST', '/api/proxies', {
    name: readyName,
    mode: 'Static',
    address: imageServer.hostname,
    port: Number(imageServer.port),
    labels: {},
  });
  expect(ready.status(), await ready.text()).toBe(201);
  const created = await session.api('POST', '/api/proxies', {
    name: proxyName,
    mode: 'Managed',
    provider: firstProviderName(lab.providersConfig),
    placement: { zone: 'lab1', machineType: 'small', image: 'lab' },
    cloudInit: '#cloud-config\n',
  });
  expect(created.status(), await created.text()).toBe(201);
  // Its domain runs (a providerID is recorded once Create converged), booting nothing.
  await vi.waitFor(
    async () => {
      const view = proxyViewSchema.parse(await (await session.api('GET', `/api/proxies/${proxyName}`)).json());
      expect(view.status.providerID).toBeDefined();
    },
    { timeout: 120_000, interval: 1_000 },
  );
  // The boot capture holds the firmware's output once OVMF has printed.
  await vi.waitFor(
    async () => expect(diagnosisSchema.parse(await (await session.api('GET', `/api/proxies/${proxyName}/diagnosis`)).json()).firstFailure).toBe('cloud-init'),
    { timeout: 110_000, interval: 2_000 },
  );
});

afterAll(async () => {
  if (!session) return;
  await session.api('DELETE', `/api/proxies/${readyName}`);
  await deleteProxyAndWait(session, proxyName);
  await session.close();
});

describe('the diagnosis of a Proxy that is not Ready', () => {
  it('is linked as "why?" from the Proxies table only once it has not been Ready for longer than the threshold', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/proxies`);
    await waitForData(page);
    const row = page.getByTestId(`proxy-row-${proxyName}`);
    await row.waitFor();
    await expect(row.getByRole('link', { name: /^why\?/ }).count()).resolves.toBe(0);

    // The browser's clock past the threshold: the table's shared clock reads it when the page loads.
    await page.clock.setFixedTime(Date.now() + explainNotReadyAfterMs + 60_000);
    await page.goto(`${app.url}/proxies`);
    await waitForData(page);
    const why = page.getByTestId(`proxy-row-${proxyName}`).getByRole('link', { name: /^why\?/ });
    await why.waitFor();
    await why.click();
    await page.waitForURL(`${app.url}/proxies/${proxyName}#diagnosis`);
  });

  it('shows the checklist with the failing step first, as the API reports it, and runs it again on request', async () => {
    const { page } = session;
    const steps = page.locator('#diagnosis ol > li');
    await steps.first().waitFor({ timeout: 30_000 });
    const shown = await steps.evaluateAll((items) =>
      items.map((item) => ({ id: item.getAttribute('data-testid')?.replace('diagnosis-step-', ''), status: item.getAttribute('data-status') })),
    );
    expect(shown).toHaveLength(9);
    expect(shown[0]).toEqual({ id: 'cloud-init', status: 'fail' });
    expect(shown.filter((step) => step.status === 'fail').map((step) => step.id)).toEqual(['cloud-init', 'agent', 'address']);
    // After the failures, the rest in checklist order.
    expect(shown.slice(3).map((step) => step.id)).toEqual(['host', 'domain', 'seed', 'port', 'probe', 'egress']);
    await expect(page.locator('#diagnosis').getByText('Fails at "Boot reached cloud-init".').count()).resolves.toBe(1);
    await expect(page.getByTestId('diagnosis-step-cloud-init').getByText('Next:').count()).resolves.toBe(1);

    const api = diagnosisSchema.parse(await (await session.api('GET', `/api/proxies/${proxyName}/diagnosis`)).json());
    expect(api.firstFailure).toBe(shown[0]?.id);

    const path = await screenshot(page, 'proxy-diagnosis-checklist');
    console.log(`screenshot: ${path}`);

    const runs: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === `/api/proxies/${proxyName}/diagnosis`) runs.push(request.method());
    });
    await page.getByRole('button', { name: 'Run again' }).click();
    await vi.waitFor(() => expect(runs).toEqual(['GET']), { timeout: 10_000, interval: 100 });
    await page.getByRole('button', { name: 'Run again' }).waitFor();
    await expect(page.getByTestId('diagnosis-step-cloud-init').getAttribute('data-status')).resolves.toBe('fail');
  });

  it('runs for a Ready Proxy only when asked, then shows every step it could check passing', async () => {
    const { page, app } = session;
    await vi.waitFor(
      async () => expect(proxyViewSchema.parse(await (await session.api('GET', `/api/proxies/${readyName}`)).json()).status.phase).toBe('Ready'),
      {
        timeout: 30_000,
        interval: 500,
      },
    );
    const runs: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === `/api/proxies/${readyName}/diagnosis`) runs.push(request.method());
    });
    await page.goto(`${app.url}/proxies/${readyName}`);
    await waitForData(page);
    const run = page.getByRole('button', { name: 'Run diagnosis' });
    await run.waitFor();
    expect(runs).toEqual([]);
    await run.click();
    await page.getByTestId('diagnosis-step-probe').waitFor();
    expect(runs).toEqual(['GET']);
    const shown = await page.locator('#diagnosis ol > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-status')));
    expect(shown).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'pass', 'pass', 'pass', 'skipped']);
    await expect(page.locator('#diagnosis').getByText('No step failed.').count()).resolves.toBe(1);
  });
});
