import { afterEach, describe, expect, it } from 'vitest';
import { instanceName, specHash } from '@/server/control/names';
import type { Provider } from '@/server/providers/contract';
import { ErrTransient } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy, updateOf } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const providerID = `fake/${instanceName('alpha')}`;

async function runningProxy(provider: Provider) {
  harness = await controlPlane({ providers: [provider] });
  const spec = managedProxy('alpha');
  await harness.proxies.create(spec);
  await harness.settle();
  expect((await harness.proxies.get('alpha')).status.phase).toBe('Running');
  return spec;
}

describe('replacement on a spec-hash change', () => {
  it.each([
    ['placement.image', { placement: { zone: 'host-a', machineType: 'small', image: 'debian-12' } }],
    ['placement.region', { placement: { zone: 'host-a', region: 'eu', machineType: 'small', image: 'debian-13' } }],
    ['cloudInit', { cloudInit: '#cloud-config\npackages: [tinyproxy]\n' }],
    ['port', { port: 8080 }],
  ])('a changed %s deletes the old instance, then creates the new one', async (_field, change) => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const spec = await runningProxy(provider);
    const statusAtDelete: string[] = [];
    const realDelete = provider.delete.bind(provider);
    provider.delete = async (id, options) => {
      // The intent is committed before the provider is asked to act.
      statusAtDelete.push((await harness!.store.proxies.get('alpha'))!.status.conditions[0]!.reason);
      return realDelete(id, options);
    };
    await harness!.proxies.update('alpha', updateOf(spec, change));
    await harness!.settle();

    expect(provider.calls.map((call) => call.method)).toEqual(['create', 'delete', 'create']);
    expect(statusAtDelete).toEqual(['Replacing']);
    const view = await harness!.proxies.get('alpha');
    expect(view.status.phase).toBe('Running');
    expect(view.status.observedSpecHash).toBe(view.status.specHash);
    expect((await harness!.store.proxies.get('alpha'))!.status.instanceSpecHash).toBe(specHash((await harness!.store.proxies.get('alpha'))!.spec));
  });

  it('leaves the instance alone when only labels change', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const spec = await runningProxy(provider);
    await harness!.proxies.update('alpha', updateOf(spec, { labels: { pool: 'crawlers' } }));
    await harness!.settle();
    expect(provider.calls.map((call) => call.method)).toEqual(['create', 'get']);
    expect((await harness!.proxies.get('alpha')).labels).toEqual({ pool: 'crawlers' });
  });

  it('keeps the old providerID until its delete succeeded, retrying a failed delete', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const spec = await runningProxy(provider);
    provider.failNext('delete', new ErrTransient('connection reset'));
    await harness!.proxies.update('alpha', updateOf(spec, { port: 8080 }));
    await harness!.settle();
    const record = (await harness!.store.proxies.get('alpha'))!;
    expect(record.status.providerID).toBe(providerID);
    expect(record.status.lastError?.class).toBe('transient');
    expect(harness!.reconciler.failureCount('alpha')).toBe(1);

    harness!.reconciler.enqueue('alpha');
    await harness!.settle();
    expect(provider.instances.get(providerID)?.port).toBe(8080);
    expect((await harness!.proxies.get('alpha')).status.phase).toBe('Running');
  });

  it('finds the instance of an interrupted Create by uid when the spec changed before the restart', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider] });
    await harness.pause();
    const spec = managedProxy('alpha');
    const { uid } = await harness.proxies.create(spec);
    const record = (await harness.store.proxies.get('alpha'))!;
    // Killed after the provider built the instance for the first spec, before its providerID was saved.
    await harness.store.proxies.writeStatus(uid, { ...record.status, phase: 'Provisioning', instanceSpecHash: specHash(record.spec) });
    provider.put({ providerID, name: instanceName('alpha'), uid, state: 'Running', ip: '198.51.100.7', port: 3128, managed: true });
    await harness.proxies.update('alpha', updateOf(spec, { port: 8080 }));

    await harness.restart();
    await harness.settle();
    expect(provider.calls.map((call) => call.method)).toEqual(['listByTag', 'delete', 'create']);
    expect(provider.instances.get(providerID)?.port).toBe(8080);
  });
});
