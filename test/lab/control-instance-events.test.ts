// Events drive the reconciler on the lab: a Proxy's domain destroyed by root's virsh behind the
// control plane's back is reconciled within seconds. Resync, provisioning polls and backoff are
// all minutes apart, and the test first checks that no pass runs while nothing happens, so only
// the libvirt lifecycle event can explain the pass that notices the stop.
import { describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import { virsh } from './harness/lab';
import { domainState, labProxy, recordedInstance, singleProxySuite } from './control-support';

const suite = singleProxySuite({
  suffix: 'events',
  env: { RESYNC_INTERVAL: '10m', PROVISIONING_POLL_INTERVAL: '10m', RECONCILE_BACKOFF_BASE: '5m', RECONCILE_BACKOFF_CAP: '5m' },
});

const runs = (domain: string, timeout: number) =>
  expect.poll(() => domainState(domain), { message: `${domain} to run`, timeout, interval: 250 }).toBe('running');

describe('instance events on the lab', () => {
  it('a domain destroyed behind our back is reconciled within seconds, by its lifecycle event', async () => {
    const { run, runtime, entry, proxy } = suite;
    const domain = instanceName(proxy);
    await runtime.services.proxies.create(labProxy({ name: proxy, provider: entry, zone: 'lab1' }));
    const providerID = await recordedInstance(runtime, proxy);
    expect(providerID).toBe(`hosts/lab1/domains/${domain}`);
    await runs(domain, 60_000);

    // Quiet: with every timer minutes away, no pass looks at the instance on its own. Nothing runs
    // and the Proxy's next pass is not due for minutes (well past the 10 s the test waits below).
    await runtime.loops.reconciler.idle();
    expect(runtime.loops.reconciler.scheduledAt(proxy) ?? Number.POSITIVE_INFINITY).toBeGreaterThan(Date.now() + 60_000);
    const scoped = run.scoped.get(entry);
    const gets = () => scoped?.gets.get(providerID) ?? 0;
    const quietGets = gets();

    const destroyedAt = Date.now();
    await virsh(['destroy', domain]);
    const virshReturnedAt = Date.now();
    const stopped = await vi.waitFor(
      async () => {
        const event = (await runtime.services.proxies.events(proxy)).find((candidate) => candidate.reason === 'InstanceStopped');
        expect(event, 'the Proxy to notice the stop').toBeDefined();
        return event as NonNullable<typeof event>;
      },
      { timeout: 10_000, interval: 20 },
    );
    const logged = run.logs.find((line) => line.msg === 'instance event; reconciling the Proxy' && line.event === 'Stopped/Destroyed');
    expect(logged).toMatchObject({ provider: entry, target: 'lab1', instance: domain, proxy });
    expect(gets()).toBeGreaterThan(quietGets);
    const since = (at: number) => `${at - destroyedAt} ms`;
    console.info(
      `virsh destroy: returned ${since(virshReturnedAt)}, event logged ${since(Number(logged?.time))}, InstanceStopped recorded ${since(Date.parse(stopped.firstAt))} after it started`,
    );

    // And the reconciler carries on as for any stopped instance: deleted and created again.
    await expect
      .poll(async () => (await runtime.services.proxies.events(proxy)).map((event) => event.reason), {
        message: 'the stopped instance to be deleted',
        timeout: 30_000,
      })
      .toContain('InstanceDeleted');
    await runs(domain, 60_000);
  });
});
