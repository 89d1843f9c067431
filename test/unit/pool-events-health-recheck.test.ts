// A storage pool started, stopped or refreshed on a host is a change the host's health check reads:
// kvm2 reports its pool events as target changes, and the control plane runs the health checks at
// once, one more time for changes that arrive while a check runs, never once per event.
import { describe, expect, it } from 'vitest';
import { InstanceEvents } from '@/server/control/instance-events';
import { StoragePoolEventType } from '@/server/libvirt';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { openStore } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { FakeProvider } from '@/test/fakes/fake-provider';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';
import { nextTurn } from '@/test/support/wait';

describe('pool events re-check host health', () => {
  it('kvm2 reports a pool lifecycle or refresh event on a host as a change of that target', async () => {
    const h1 = new FakeHypervisor();
    const backend = new FakeHostBackend({ h1 });
    const provider = createKvm2Provider({
      settings: kvm2Settings({ hosts: [{ name: 'h1', address: 'h1.lan', user: 'admin', bridge: 'br0' }] }),
      backend,
      logger: createLogger({ level: 'silent' }),
    });
    const changed: Array<[string, string]> = [];
    const watch = provider.watchInstances({ changed: () => {}, targetChanged: (target, what) => changed.push([target, what]) });
    await expect.poll(() => backend.pooledConnection('h1')?.subscriptionCount ?? 0, { timeout: 2_000, interval: 2 }).toBe(3);
    h1.emitPoolLifecycle('default', StoragePoolEventType.Stopped);
    h1.emitPoolRefresh('default');
    expect(changed).toEqual([
      ['h1', 'pool default Stopped'],
      ['h1', 'pool default refreshed'],
    ]);
    await watch.stop();
    await provider.close();
  });

  it('runs the health checks at once, and once more for changes during a check, not once per change', async () => {
    const dir = tempDir();
    const store = await openStore({ dataDir: dir.path, logger: silentLogger() });
    const provider = new FakeProvider({ name: 'fake-1' });
    let checks = 0;
    let finish = () => {};
    const recheckHealth = () => {
      checks += 1;
      return new Promise<void>((resolve) => (finish = resolve));
    };
    const events = new InstanceEvents({
      store,
      providers: { list: () => [provider] },
      logger: silentLogger(),
      enqueue: () => {},
      resyncAll: async () => {},
      recheckHealth,
    });
    events.start();
    const targetChanged = (what: string) => {
      for (const watcher of provider.watchers) watcher.targetChanged?.('host-a', what);
    };
    targetChanged('pool default Stopped');
    expect(checks).toBe(1);
    targetChanged('pool default refreshed');
    targetChanged('pool default Started');
    expect(checks).toBe(1);
    finish();
    await expect.poll(() => checks).toBe(2);
    finish();
    // The re-check machinery is promise callbacks only: one turn runs all it will do.
    await nextTurn();
    expect(checks).toBe(2);
    await events.stop();
    await store.close();
    dir.remove();
  });
});
