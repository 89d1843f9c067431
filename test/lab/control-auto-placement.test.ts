// Automatic placement through the runtime on the lab's two hosts: a Proxy without placement.zone
// goes to the host that fits, and the choice with its reason lands in the status and on the events
// timeline; lab2 is made unfit by giving it the lab's stopped pool (both hosts reach the one lab
// libvirtd, so stopping `default` itself would stop it for both). With no host fitting, the Proxy
// waits with a condition naming why each host was refused, and nothing is created.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyView } from '@/lib/proxy-spec';
import { instanceName } from '@/server/control/names';
import type { Runtime } from '@/server/runtime';
import { loadLab, type Lab } from './harness/lab';
import { ControlLabRun, domainState, labProxy } from './control-support';

let lab: Lab;
let run: ControlLabRun;
let runtime: Runtime;
let oneFits: string;
let noneFits: string;

beforeAll(async () => {
  lab = loadLab();
  run = new ControlLabRun(lab);
  oneFits = run.entryName('onefits');
  noneFits = run.entryName('nonefits');
  runtime = await run.start({
    entries: [
      { suffix: 'onefits', poolByHost: { lab2: lab.inactivePool.name } },
      { suffix: 'nonefits', pool: lab.inactivePool.name },
    ],
    env: { QUOTA_RETRY: '1s' },
  });
});
afterAll(async () => {
  await run?.cleanUp();
});

const view = (name: string): Promise<ProxyView> => runtime.services.proxies.get(name);
const autoProxy = (name: string, provider: string) => {
  const proxy = labProxy({ name, provider });
  return { ...proxy, placement: { machineType: proxy.placement.machineType, image: proxy.placement.image } };
};

describe('automatic placement on the lab', () => {
  it('creates a Proxy without a zone on the host that fits and records why', async () => {
    const name = run.proxyName('auto');
    await runtime.services.proxies.create(autoProxy(name, oneFits));
    await expect.poll(async () => (await view(name)).status.providerID, { message: `${name} to be created`, timeout: 90_000, interval: 250 }).toBeDefined();

    const { status, placement } = await view(name);
    expect(placement?.zone).toBeUndefined();
    expect(status.providerID).toBe(`hosts/lab1/domains/${instanceName(name)}`);
    expect(status.chosenPlacement?.zone).toBe('lab1');
    expect(status.chosenPlacement?.reason).toMatch(/^lab1: [\d.]+ GiB free, [\d.]+ GiB memory free, \d+ VMs? \(spread\)$/);
    const placed = (await runtime.services.proxies.events(name)).filter((event) => event.reason === 'Placed');
    expect(placed).toHaveLength(1);
    expect(placed[0]?.message).toBe(`placed on ${status.chosenPlacement?.reason}; refused lab2: ${await refusalOfStoppedPool(oneFits, 'lab2')}`);
    expect(await domainState(instanceName(name))).toBe('running');
  });

  it('waits, not Failed, naming why each host was refused, when no host fits', async () => {
    const name = run.proxyName('nofit');
    await runtime.services.proxies.create(autoProxy(name, noneFits));
    await expect.poll(async () => (await healthOf(noneFits)).length, { message: 'the first health check', timeout: 30_000, interval: 250 }).toBe(2);
    const expected = `no host fits: lab1: ${await refusalOfStoppedPool(noneFits, 'lab1')}; lab2: ${await refusalOfStoppedPool(noneFits, 'lab2')}`;
    const condition = async () => (await view(name)).status.conditions.find((c) => c.type === 'Provisioned');
    await expect.poll(async () => (await condition())?.message, { timeout: 30_000, interval: 250 }).toBe(expected);

    expect((await condition())?.reason).toBe('NoHostFits');
    expect((await view(name)).status.phase).not.toBe('Failed');
    expect((await runtime.services.proxies.events(name)).filter((event) => event.reason === 'NoHostFits').at(-1)?.message).toBe(expected);
    expect((await view(name)).status.providerID).toBeUndefined();
    expect(await domainState(instanceName(name))).toBeUndefined();
  });
});

const healthOf = async (provider: string) => (await runtime.services.providers.list()).find((entry) => entry.name === provider)?.targets ?? [];

/** The refusal of a host whose health check found its pool stopped, with that check's own message. */
async function refusalOfStoppedPool(provider: string, host: string): Promise<string> {
  const target = (await healthOf(provider)).find((candidate) => candidate.name === host);
  expect(target).toMatchObject({ ready: false, reason: 'PoolNotActive' });
  return `not healthy: PoolNotActive${target?.message ? ` (${target.message})` : ''}`;
}
