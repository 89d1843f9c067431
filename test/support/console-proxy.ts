// The Proxy the console tests work on: `alpha`, Managed on the fake provider (`fake-1`), created
// through the API; the fake boots it at once and its console opens without any page watching.
import { expect } from 'vitest';
import { type ApiHarness, handlers } from '@/test/unit/api-harness';

/** The POST /api/proxies body that creates `alpha`. */
export const alphaProxyBody = {
  name: 'alpha',
  mode: 'Managed',
  provider: 'fake-1',
  placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' },
  cloudInit: '#cloud-config\n',
} as const;

/** Creates `alpha`, waits for its boot-time console to be live, and answers its providerID (the fake's console device key). */
export async function createConsoleProxy(api: ApiHarness): Promise<string> {
  const created = await api.call(handlers.proxies.POST, '/api/proxies', 'POST', { session: true, body: alphaProxyBody });
  expect(created.status).toBe(201);
  await expect.poll(() => api.runtime.services.consoles.status('alpha').state).toBe('live');
  return (await api.runtime.services.proxies.get('alpha')).status.providerID!;
}
