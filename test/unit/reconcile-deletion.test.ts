import { afterEach, describe, expect, it } from 'vitest';
import { ProxyDeletingError, ProxyExistsError } from '@/server/control/errors';
import { instanceName, specHash } from '@/server/control/names';
import { ErrPermanent, ErrTransient } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy, updateOf } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const providerID = `fake/${instanceName('alpha')}`;

async function runningProxy(provider: FakeProvider) {
  harness = await controlPlane({ providers: [provider] });
  const spec = managedProxy('alpha');
  await harness.proxies.create(spec);
  await harness.settle();
  return spec;
}

describe('deleting a Proxy', () => {
  it('commits Deleting before calling the provider, and removes the record once Delete succeeded', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    await runningProxy(provider);
    const phaseAtDelete: string[] = [];
    const realDelete = provider.delete.bind(provider);
    provider.delete = async (id, options) => {
      phaseAtDelete.push((await harness!.store.proxies.get('alpha'))!.status.phase);
      return realDelete(id, options);
    };
    const answer = await harness!.proxies.delete('alpha');
    expect(answer.deletionRequestedAt).toBeDefined();
    await harness!.settle();

    expect(phaseAtDelete).toEqual(['Deleting']);
    expect(provider.instances.has(providerID)).toBe(false);
    expect(await harness!.store.proxies.get('alpha')).toBeUndefined();
    expect(await harness!.store.sql.all('SELECT * FROM proxy_events')).toEqual([]);
  });

  it("lets the gateway drain the Proxy's tunnels after Deleting is committed and before the VM is deleted", async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const order: string[] = [];
    harness = await controlPlane({
      providers: [provider],
      drain: async (proxy) => {
        order.push(`drain ${proxy} (${(await harness!.store.proxies.get(proxy))!.status.phase})`);
      },
    });
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    const realDelete = provider.delete.bind(provider);
    provider.delete = async (id, options) => {
      order.push(`delete ${id}`);
      return realDelete(id, options);
    };

    await harness.proxies.delete('alpha');
    await harness.settle();

    expect(order).toEqual(['drain alpha (Deleting)', `delete ${providerID}`]);
  });

  it.each([
    ['transient', new ErrTransient('connection reset')],
    ['permanent', new ErrPermanent('malformed providerID')],
  ])('stays Deleting with the error after a %s Delete failure, and retries with backoff', async (_name, error) => {
    const provider = new FakeProvider({ name: 'fake-1' });
    await runningProxy(provider);
    provider.failNext('delete', error);
    await harness!.proxies.delete('alpha');
    await harness!.settle();
    const view = await harness!.proxies.get('alpha');
    expect(view.status.phase).toBe('Deleting');
    expect(view.status.lastError?.message).toBe(error.message);
    expect(harness!.reconciler.scheduledAt('alpha')).toBeDefined();

    harness!.reconciler.enqueue('alpha');
    await harness!.settle();
    expect(await harness!.store.proxies.get('alpha')).toBeUndefined();
    expect(provider.instances.size).toBe(0);
  });

  it('removes the instance of an unrecorded Create by uid', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider] });
    await harness.pause();
    const { uid } = await harness.proxies.create(managedProxy('alpha'));
    const record = (await harness.store.proxies.get('alpha'))!;
    await harness.store.proxies.writeStatus(uid, { ...record.status, phase: 'Provisioning', instanceSpecHash: specHash(record.spec) });
    provider.put({ providerID, name: instanceName('alpha'), uid, state: 'Running', managed: true });
    provider.put({ providerID: 'fake/someone-else', name: 'someone-else', uid: 'other-uid', state: 'Running', managed: true });
    await harness.proxies.delete('alpha');
    await harness.restart();
    await harness.settle();
    expect([...provider.instances.keys()]).toEqual(['fake/someone-else']);
    expect(await harness.store.proxies.get('alpha')).toBeUndefined();
  });

  it('does not call the provider for a Proxy that never got as far as a Create', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [provider] });
    await harness.pause();
    await harness.proxies.create(managedProxy('alpha'));
    await harness.proxies.delete('alpha');
    await harness.restart();
    await harness.settle();
    expect(provider.calls).toEqual([]);
    expect(await harness.store.proxies.get('alpha')).toBeUndefined();
  });

  it('finishes when the provider is no longer configured (orphan GC collects the instance if it returns)', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    await runningProxy(provider);
    await harness!.providers.replace({ handles: new Map(), unavailable: new Map(), version: 'v2' });
    await harness!.proxies.delete('alpha');
    await harness!.settle();
    expect(await harness!.store.proxies.get('alpha')).toBeUndefined();
    expect(provider.instances.has(providerID)).toBe(true);
  });

  it('refuses changes to a Proxy being deleted, and a new Proxy of the same name until it is gone', async () => {
    const provider = new FakeProvider({ name: 'fake-1' });
    const spec = await runningProxy(provider);
    provider.failAlways('delete', new ErrTransient('host down'));
    await harness!.proxies.delete('alpha');
    await harness!.settle();
    await expect(harness!.proxies.update('alpha', updateOf(spec, { port: 9000 }))).rejects.toThrow(ProxyDeletingError);
    await expect(harness!.proxies.create(spec)).rejects.toThrow(ProxyExistsError);
  });
});
