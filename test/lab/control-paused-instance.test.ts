// A VM an admin paused on the host (`virsh suspend`) is left alone by the control plane: the Proxy
// shows InstancePaused with the command that resumes it, the domain is neither resumed, destroyed
// nor recreated over several reconcile passes, and after `virsh resume` the Proxy converges again
// on the same domain.
import { describe, expect, it, vi } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import { virsh } from './harness/lab';
import { domainState, labProxy, recordedInstance, singleProxySuite } from './control-support';

const suite = singleProxySuite({ suffix: 'paused' });

const view = (): Promise<ProxyView> => suite.runtime.services.proxies.get(suite.proxy);
const provisionedReason = async () => (await view()).status.conditions.find((condition) => condition.type === 'Provisioned')?.reason;

describe('a VM paused on the host', () => {
  it('is left alone while paused and converges again once resumed', async () => {
    const { run, runtime, entry, proxy } = suite;
    const domain = instanceName(proxy);
    await runtime.services.proxies.create(labProxy({ name: proxy, provider: entry, zone: 'lab1' }));
    const providerID = await recordedInstance(runtime, proxy);
    await vi.waitFor(async () => expect(await domainState(domain), `${domain} to run`).toBe('running'), { timeout: 60_000, interval: 250 });
    const uuid = (await virsh(['domuuid', domain])).trim();

    await virsh(['suspend', domain]);
    await expect.poll(provisionedReason, { message: 'the Proxy to say the VM is paused', timeout: 30_000 }).toBe('InstancePaused');
    const condition = (await view()).status.conditions.find((c) => c.type === 'Provisioned');
    expect(condition?.message).toBe(
      `domain ${domain} is DomainPaused on host lab1; nothing here resumes or replaces it; resume it on the host with virsh resume ${domain}`,
    );

    // Three more passes (one a second): each looks, none touches the domain.
    const scoped = run.scoped.get(entry);
    const target = (scoped?.gets.get(providerID) ?? 0) + 3;
    await expect
      .poll(() => scoped?.gets.get(providerID) ?? 0, { message: 'three more reconcile passes', timeout: 30_000, interval: 100 })
      .toBeGreaterThanOrEqual(target);
    expect(await domainState(domain)).toBe('paused');
    expect((await virsh(['domuuid', domain])).trim()).toBe(uuid);
    expect(await provisionedReason()).toBe('InstancePaused');
    expect((await view()).status.providerID).toBe(providerID);

    await virsh(['resume', domain]);
    await expect.poll(provisionedReason, { message: 'the Proxy to leave InstancePaused', timeout: 30_000 }).not.toBe('InstancePaused');
    expect(await domainState(domain)).toBe('running');
    expect((await virsh(['domuuid', domain])).trim()).toBe(uuid);
    expect((await view()).status).toMatchObject({ phase: 'Provisioning', providerID });
    const reasons = (await runtime.services.proxies.events(proxy)).map((event) => event.reason);
    expect(reasons.filter((reason) => reason === 'InstancePaused')).toHaveLength(1);
    for (const never of ['InstanceStopped', 'InstanceDeleted', 'Failed']) expect(reasons).not.toContain(never);
  });
});
