// GET /api/events on the lab: `virsh destroy` of a managed domain behind the control plane's back
// shows on the stream within seconds as the domain's lifecycle message (carrying the state read
// from libvirt that the host page's row shows) and then as the Proxy's new status (resync, probes
// and checks are days away, so only the libvirt event explains them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceName } from '@/server/control/names';
import { handlers as h } from '@/test/unit/api-harness';
import { type LabApi, startLabApi } from './api-lab-support';
import { loadLab, virsh } from './harness/lab';
import { watchLiveEvents } from './live-events-support';

let api: LabApi;
beforeAll(async () => {
  api = await startLabApi(loadLab());
});
afterAll(async () => {
  await api?.close();
});

describe('the event stream on the lab', () => {
  it('carries a destroyed domain’s lifecycle message and its Proxy’s status change within seconds', async () => {
    const name = api.proxyName('live');
    const domain = instanceName(name);
    const body = { name, mode: 'Managed', provider: api.entryName, placement: { zone: 'lab1', machineType: 'small', image: 'lab' }, cloudInit: '' };
    expect((await api.call(h.proxies.POST, '/api/proxies', 'POST', { session: api.session, body })).status).toBe(201);
    await expect
      .poll(async () => (await virsh(['domstate', domain]).catch(() => '')).trim(), { message: `${domain} running`, timeout: 110_000, interval: 500 })
      .toBe('running');
    await expect.poll(async () => (await api.runtime.services.proxies.get(name)).status.providerID, { timeout: 30_000 }).toBe(`hosts/lab1/domains/${domain}`);

    const stream = await watchLiveEvents(api);
    try {
      await stream.next({ sinceMs: 0, matches: (message) => message.kind === 'ready', timeoutMs: 5_000, what: 'ready' });
      const destroyedAt = Date.now();
      await virsh(['destroy', domain]);
      const lifecycle = await stream.next({
        sinceMs: destroyedAt,
        matches: (message) => message.kind === 'domain' && message.name === domain && message.event.startsWith('Stopped/'),
        timeoutMs: 10_000,
        what: `the Stopped message of ${domain}`,
      });
      expect(lifecycle.message).toMatchObject({
        kind: 'domain',
        target: 'lab1',
        provider: api.entryName,
        proxy: name,
        providerID: `hosts/lab1/domains/${domain}`,
        // read from libvirt right after the event: what the host page's row shows
        state: 'shut off',
      });
      const status = await stream.next({
        sinceMs: lifecycle.at,
        matches: (message) =>
          message.kind === 'proxy' &&
          message.name === name &&
          message.proxy?.status.conditions.some((condition) => condition.reason === 'InstanceStopped') === true,
        timeoutMs: 10_000,
        what: `${name}'s InstanceStopped status`,
      });
      console.info(`virsh destroy → domain message ${lifecycle.at - destroyedAt} ms, → Proxy status message ${status.at - destroyedAt} ms`);
    } finally {
      await stream.close();
    }
  });
});
