// API tokens from the Settings page: a new token's secret is shown once and works on the
// discovery API; after a reload only its name is listed; revoked, it stops working. Gateway tokens
// beside them: shown once, no key to the API, listed without the secret, revoked behind a confirmation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorBodySchema } from '@/lib/api/errors';
import { discoveryListSchema } from '@/lib/api/proxies';
import { screenshot } from './harness/browser';
import { waitForData } from './harness/dashboard';
import { openSession, type Session } from './harness/session';

let session: Session;

beforeAll(async () => {
  session = await openSession();
});

afterAll(async () => {
  await session?.close();
});

describe('API tokens', () => {
  it('shows a new token once, lists it afterwards without its secret, and revokes it', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/settings`);
    await waitForData(page);
    await page.getByLabel('New token name').fill('crawler-e2e');
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = ((await page.getByTestId('new-token').textContent()) ?? '').trim();
    expect(secret.length).toBeGreaterThan(16);
    await screenshot(page, 'settings-new-token');
    // Outside the browser, so the admin's session cookie does not ride along.
    const discovery = await fetch(`${app.url}/api/discovery/proxies`, { headers: { authorization: `Bearer ${secret}` } });
    expect(discovery.status).toBe(200);
    expect(discoveryListSchema.parse(await discovery.json())).toEqual({ proxies: [] });

    await page.reload();
    await waitForData(page);
    await page.getByRole('cell', { name: /^crawler-e2e/ }).waitFor();
    await expect(page.content()).resolves.not.toContain(secret);

    await page.getByRole('button', { name: 'Revoke crawler-e2e' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await page.getByRole('cell', { name: /^crawler-e2e/ }).waitFor({ state: 'detached' });
    const refused = await fetch(`${app.url}/api/discovery/proxies`, { headers: { authorization: `Bearer ${secret}` } });
    expect(refused.status).toBe(401);
    expect(apiErrorBodySchema.parse(await refused.json()).error.code).toBe('ERR_UNAUTHENTICATED');
  });
});

describe('gateway tokens', () => {
  it('shows a new gateway token once, which the API refuses, lists it without its secret, and revokes it', async () => {
    const { page, app } = session;
    await page.goto(`${app.url}/settings`);
    await waitForData(page);
    await page.getByLabel('New gateway token name').fill('gateway-e2e');
    await page.getByRole('button', { name: 'Create gateway token' }).click();
    const secret = ((await page.getByTestId('new-gateway-token').textContent()) ?? '').trim();
    expect(secret).toMatch(/^kvm2g_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const refused = await fetch(`${app.url}/api/discovery/proxies`, { headers: { authorization: `Bearer ${secret}` } });
    expect(refused.status).toBe(401);

    await page.reload();
    await waitForData(page);
    await page
      .getByRole('region', { name: 'Gateway tokens' })
      .getByRole('cell', { name: /^gateway-e2e/ })
      .waitFor();
    await expect(page.content()).resolves.not.toContain(secret);

    await page.getByRole('button', { name: 'Revoke gateway-e2e' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke gateway token' }).click();
    await page.getByRole('cell', { name: /^gateway-e2e/ }).waitFor({ state: 'detached' });
  });
});
