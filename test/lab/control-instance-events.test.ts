// Events drive the reconciler on the lab: a Proxy's domain destroyed by root's virsh behind the
// control plane's back is reconciled within seconds. Resync, provisioning polls and backoff are
// all minutes apart, and the test first checks that no pass runs while nothing happens, so only
// the libvirt lifecycle event can explain the pass that notices the stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceName } from '@/server/control/names';
import type { Runtime } from '@/server/runtime';
import { loadLab, virsh } from './harness/lab';
import { ControlLabRun, domainState, labProxy, waitFor } from './control-support';

let run: ControlLabRun;
let runtime: Runtime;
let entry: string;
let proxy: string;

beforeAll(async () => {
  run = new ControlLabRun(loadLab());
  entry = run.entryName('events');
  proxy = run.proxyName('events');
  runtime = await run.start({
    entries: [{ suffix: 'events' }],
    env: { RESYNC_INTERVAL: '10m', PROVISIONING_POLL_INTERVAL: '10m', RECONCILE_BACKOFF_BASE: '5m', RECONCILE_BACKOFF_CAP: '5m' },
  });
});
afterAll(async () => {
  await run?.cleanUp();
});

const running = async (domain: string) => ((await domainState(domain)) === 'running' ? true : undefined);

describe('instance events on the lab', () => {
  it('a domain destroyed behind our back is reconciled within seconds, by its lifecycle event', async () => {
    const domain = instanceName(proxy);
    runtime.proxies.create(labProxy({ name: proxy, provider: entry, zone: 'lab1' }));
    const providerID = await waitFor(`${proxy} to record its instance`, () => runtime.proxies.get(proxy).status.providerID, { timeoutMs: 90_000 });
    expect(providerID).toBe(`hosts/lab1/domains/${domain}`);
    await waitFor(`${domain} to run`, () => running(domain));

    // Quiet: with every timer minutes away, no pass looks at the instance on its own.
    await runtime.reconciler.idle();
    const scoped = run.scoped.get(entry);
    const gets = () => scoped?.gets.get(providerID) ?? 0;
    const quietGets = gets();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(gets()).toBe(quietGets);

    const destroyedAt = Date.now();
    await virsh(['destroy', domain]);
    const stopped = await waitFor(
      'the Proxy to notice the stop',
      () => runtime.proxies.events(proxy).find((event) => event.reason === 'InstanceStopped'),
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    const logged = run.logs.find((line) => line.msg === 'instance event; reconciling the Proxy' && line.event === 'Stopped/Destroyed');
    expect(logged).toMatchObject({ provider: entry, target: 'lab1', instance: domain, proxy });
    expect(gets()).toBeGreaterThan(quietGets);
    console.info(`virsh destroy → event logged ${Number(logged?.time) - destroyedAt} ms, → InstanceStopped recorded ${Date.parse(stopped.firstAt) - destroyedAt} ms`);

    // And the reconciler carries on as for any stopped instance: deleted and created again.
    await waitFor('the instance to be created again', () => (runtime.proxies.events(proxy).some((event) => event.reason === 'InstanceDeleted') ? true : undefined), { timeoutMs: 30_000 });
    await waitFor(`${domain} to run again`, () => running(domain), { timeoutMs: 60_000 });
  });
});
