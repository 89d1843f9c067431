// How the runtime reports the two refusals a real host makes before any volume exists: a
// diskSizeGb the pool cannot hold is QuotaExceeded (Provisioned=False, retried after QuotaRetry,
// never Failed), and a machine type the provider entry does not define is Failed with the spec's
// message, latched until the spec changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import type { Runtime } from '@/server/runtime';
import { loadLab, virsh, type Lab } from './harness/lab';
import { ControlLabRun, domainState, labProxy } from './control-support';

let lab: Lab;
let run: ControlLabRun;
let runtime: Runtime;
let fits: string;
let tooBig: string;

const gib = 1024 ** 3;

/** The lab pool's free bytes as root's virsh reports them. */
async function availableBytes(): Promise<number> {
  const match = /Available:\s+(\d+)/.exec(await virsh(['pool-info', '--bytes', lab.pool.name]));
  if (!match?.[1]) throw new Error('virsh pool-info printed no Available line');
  return Number(match[1]);
}

beforeAll(async () => {
  lab = loadLab();
  run = new ControlLabRun(lab);
  fits = run.entryName('fits');
  tooBig = run.entryName('toobig');
  const diskSizeGb = Math.ceil((await availableBytes()) / gib) + 100;
  // QuotaRetry short, so the test sees the wait repeat; RESYNC short, so it sees the latch hold.
  runtime = await run.start({
    entries: [{ suffix: 'fits' }, { suffix: 'toobig', kvm2: { diskSizeGb } }],
    env: { QUOTA_RETRY: '1s', RESYNC_INTERVAL: '1s' },
  });
});
afterAll(async () => {
  await run?.cleanUp();
});

const view = (name: string): Promise<ProxyView> => runtime.services.proxies.get(name);
const provisionedCondition = async (name: string) => (await view(name)).status.conditions.find((condition) => condition.type === 'Provisioned');
async function skippedPasses(): Promise<number> {
  const { values } = await runtime.services.metrics.reconcileTotal.get();
  return values.find((value) => value.labels.outcome === 'skipped')?.value ?? 0;
}
/** How often an event was recorded (repeats are folded into one row with a count). */
const eventCount = async (name: string, reason: string) =>
  (await runtime.services.proxies.events(name)).reduce((sum, event) => sum + (event.reason === reason ? event.count : 0), 0);

describe('placement refusals through the runtime on the lab', () => {
  it('a provider entry whose diskSizeGb exceeds the pool gives Provisioned=False QuotaExceeded, retried, never Failed', async () => {
    const name = run.proxyName('quota');
    await runtime.services.proxies.create(labProxy({ name, provider: tooBig }));
    await expect
      .poll(() => eventCount(name, 'QuotaExceeded'), { message: 'a second QuotaExceeded attempt', timeout: 30_000, interval: 250 })
      .toBeGreaterThanOrEqual(2);

    const { status } = await view(name);
    expect(status.phase).toBe('Provisioning');
    expect(await provisionedCondition(name)).toMatchObject({ status: 'False', reason: 'QuotaExceeded' });
    expect((await provisionedCondition(name))?.message).toMatch(/^storage pool "default" on host lab1 has \d+ bytes available, \d+ needed/);
    expect(status.lastError?.class).toBe('quotaExceeded');
    expect(await eventCount(name, 'Failed')).toBe(0);
    // Refused before anything was made: no domain, no overlay or seed, no base downloaded.
    expect(await domainState(instanceName(name))).toBeUndefined();
    expect(await run.instanceVolumes(instanceName(name))).toEqual([]);
    expect((await run.baseVolumes()).filter((volume) => volume.startsWith(`base-${tooBig}-`))).toEqual([]);
  });

  it('an unknown machineType is Failed with the spec message, and stays Failed without retrying', async () => {
    const name = run.proxyName('badtype');
    await runtime.services.proxies.create(labProxy({ name, provider: fits, machineType: 'x' }));
    await expect.poll(async () => (await view(name)).status.phase, { message: `${name} to fail`, timeout: 30_000, interval: 250 }).toBe('Failed');

    const message = 'placement.machineType "x" is not in kvm2.machineTypes';
    expect((await view(name)).status.lastError).toMatchObject({ class: 'permanent', message });
    expect(await provisionedCondition(name)).toMatchObject({ status: 'False', reason: 'ProvisioningFailed', message });
    const failedEvents = (await runtime.services.proxies.events(name)).filter((event) => event.reason === 'Failed');
    expect(failedEvents.map((event) => event.message)).toEqual([`creating instance ${instanceName(name)}: permanent: ${message}`]);

    // Two more passes find the latch (only this Proxy's passes end `skipped` here): no new attempt.
    const target = (await skippedPasses()) + 2;
    await expect
      .poll(() => skippedPasses(), { message: 'two more passes over the Failed Proxy', timeout: 30_000, interval: 250 })
      .toBeGreaterThanOrEqual(target);
    expect((await view(name)).status.phase).toBe('Failed');
    expect(await eventCount(name, 'Failed')).toBe(1);
    expect(await eventCount(name, 'Creating')).toBe(1);
    expect(await domainState(instanceName(name))).toBeUndefined();
  });
});
