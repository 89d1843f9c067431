// A replica that stopped leading touches no hypervisor: the fence sits at the connection (every
// dial and every libvirt call), not only at the provider's methods, so an aborted download's
// cleanup after the step-down deletes nothing, even over a redialled connection. What every
// replica may do (host listings, placement previews, diagnosis, consoles) still reads.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsFromEnv } from '@/server/control/settings';
import { kvm2Factory } from '@/server/providers/provider-types';
import { ProviderRegistry, type ProviderFactoryContext } from '@/server/providers/registry';
import { createRuntime } from '@/server/runtime';
import { createMetrics } from '@/server/telemetry/metrics';
import { silentLogger, tempDir } from '@/test/fakes/control-plane';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import { fencedBackend, NotLeadingError, rpcAccess } from '@/server/providers/kvm2/fence';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { rpcMethods } from '@/server/providers/kvm2/rpc-calls';
import { createLogger } from '@/server/telemetry/logger';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { makeEntry, testBudgets, testImage, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

function setup(imagePath = '/image.qcow2') {
  const hypervisor = new FakeHypervisor();
  const backend = new FakeHostBackend({ h1: hypervisor });
  const lease = { leading: true };
  const settings = withDefaults(makeEntry({ mirror, imagePath }));
  const provider = createKvm2Provider({
    settings,
    logger: createLogger({ level: 'silent' }),
    backend,
    budgets: testBudgets,
    mayAct: () => lease.leading,
  });
  return { hypervisor, backend, lease, provider };
}

describe('the fence at the connection', () => {
  it('marks exactly the calls that change what libvirt stores as writes', () => {
    expect(Object.keys(rpcAccess).sort()).toEqual([...rpcMethods].sort());
    expect(rpcMethods.filter((method) => rpcAccess[method] === 'write').sort()).toEqual([
      'domainCreate',
      'domainDefineXmlFlags',
      'domainDestroy',
      'domainSetMetadata',
      'domainUndefineFlags',
      'storagePoolCreate',
      'storagePoolDestroy',
      'storagePoolRefresh',
      'storageVolCreateXml',
      'storageVolDelete',
      'storageVolUpload',
    ]);
  });

  it("the leader's view: once not leading, no dial and no call, not even a read, on a connection it already had", async () => {
    const hypervisor = new FakeHypervisor();
    hypervisor.addVolume({ name: 'v.qcow2' });
    const inner = new FakeHostBackend({ h1: hypervisor });
    const lease = { leading: true };
    const backend = fencedBackend(inner, { mayAct: () => lease.leading, view: 'leader' });
    const api = await backend.pooled('h1');
    const pool = await api.storagePoolLookupByName({ name: 'default' });
    const volume = await api.storageVolLookupByName({ pool, name: 'v.qcow2' });
    hypervisor.resetCalls();
    lease.leading = false;
    expect(await failure(api.storageVolDelete({ vol: volume }))).toBeInstanceOf(NotLeadingError);
    expect(await failure(api.storagePoolGetInfo({ pool }))).toBeInstanceOf(NotLeadingError);
    expect(
      await failure(
        (async () => {
          for await (const chunk of api.storageVolDownload({ vol: volume })) void chunk;
        })(),
      ),
    ).toBeInstanceOf(NotLeadingError);
    inner.pooledConnection('h1')?.kill('gone');
    const dialsBefore = inner.pooledDials;
    const redial = await failure(backend.pooled('h1'));
    expect(redial).toBeInstanceOf(NotLeadingError);
    expect((redial as Error).message).toContain('connecting to host h1');
    expect(await failure(backend.fresh('h1'))).toBeInstanceOf(NotLeadingError);
    expect(inner.pooledDials).toBe(dialsBefore);
    expect(inner.freshDials).toEqual([]);
    expect(hypervisor.calls).toEqual([]);
    expect(hypervisor.volume('v.qcow2')).toBeDefined();
  });

  it("the readers' view: a replica that does not lead still dials and reads, and sends no write", async () => {
    const hypervisor = new FakeHypervisor();
    hypervisor.addVolume({ name: 'v.qcow2' });
    const backend = fencedBackend(new FakeHostBackend({ h1: hypervisor }), { mayAct: () => false, view: 'reads' });
    const api = await backend.pooled('h1');
    const pool = await api.storagePoolLookupByName({ name: 'default' });
    const volume = await api.storageVolLookupByName({ pool, name: 'v.qcow2' });
    expect(await api.storageVolGetPath({ vol: volume })).toContain('v.qcow2');
    const refused = await failure(api.storageVolDelete({ vol: volume }));
    expect(refused).toBeInstanceOf(NotLeadingError);
    expect((refused as Error).message).toContain('storageVolDelete on host h1');
    expect(hypervisor.count('storageVolDelete')).toBe(0);
    expect(hypervisor.volume('v.qcow2')).toBeDefined();
  });
});

describe('a leader that loses its lease mid-download', () => {
  it('deletes nothing afterwards: the cleanup of the aborted download neither redials nor deletes the base', async () => {
    let finish: () => void = () => undefined;
    mirror.routes.set('/held.qcow2', (req, res) => {
      res.writeHead(200, { 'content-length': testImage.length });
      if (req.method === 'HEAD') return void res.end();
      res.write(testImage.subarray(0, 4096));
      finish = () => res.end(testImage.subarray(4096));
    });
    const { hypervisor, backend, lease, provider } = setup('/held.qcow2');
    const base = provider.inventory.catalogue().images[0];
    expect(base?.key).toBe('img');
    const controller = new AbortController();
    const create = failure(
      provider.create(
        { name: 'proxy-fenced', uid: 'uid-f', placement: { machineType: 'small', image: 'img' }, cloudInit: '', port: 3128 },
        { signal: controller.signal },
      ),
    );
    await expect.poll(() => provider.downloads.list().some((entry) => entry.doneBytes > 0), { timeout: 5_000 }).toBe(true);
    const baseVolume = provider.downloads.list()[0]?.volume as string;
    // The step-down: the lease is gone, the loops abort their work, and the pooled connection
    // died meanwhile, so a cleanup would have to redial.
    lease.leading = false;
    backend.pooledConnection('h1')?.kill('network gone');
    const dialsBefore = backend.pooledDials;
    const callsBefore = hypervisor.calls.length;
    controller.abort(new Error('this replica no longer leads'));
    expect(await create).toBeInstanceOf(Error);
    finish();
    const after = hypervisor.calls.slice(callsBefore).map((call) => call.method);
    expect(after.filter((method) => rpcAccess[method as keyof typeof rpcAccess] === 'write' && method !== 'storageVolUpload')).toEqual([]);
    expect(hypervisor.count('storageVolDelete')).toBe(0);
    expect(backend.pooledDials).toBe(dialsBefore);
    // The half-written base stays, without its marker: the next leader's Create deletes and redoes it.
    expect(hypervisor.volume(baseVolume)).toBeDefined();
    expect(hypervisor.volume(`${baseVolume}.sha256`)).toBeUndefined();
  });

  it('while leading, the same abort cleans the half-written base up as before', async () => {
    let finish: () => void = () => undefined;
    mirror.routes.set('/held2.qcow2', (req, res) => {
      res.writeHead(200, { 'content-length': testImage.length });
      if (req.method === 'HEAD') return void res.end();
      res.write(testImage.subarray(0, 4096));
      finish = () => res.end(testImage.subarray(4096));
    });
    const { hypervisor, provider } = setup('/held2.qcow2');
    const controller = new AbortController();
    const create = failure(
      provider.create(
        { name: 'proxy-led', uid: 'uid-l', placement: { machineType: 'small', image: 'img' }, cloudInit: '', port: 3128 },
        { signal: controller.signal },
      ),
    );
    await expect.poll(() => provider.downloads.list().some((entry) => entry.doneBytes > 0), { timeout: 5_000 }).toBe(true);
    const baseVolume = provider.downloads.list()[0]?.volume as string;
    controller.abort(new Error('reconcile cancelled'));
    expect(await create).toBeInstanceOf(Error);
    finish();
    expect(hypervisor.volume(baseVolume)).toBeUndefined();
  });

  it('a replica that does not lead still lists its hosts for the dashboard, and its eviction deletes nothing', async () => {
    const { hypervisor, lease, provider } = setup();
    hypervisor.addVolume({ name: 'base-t-img.qcow2', format: 'qcow2', content: 'QFI\xfb' });
    lease.leading = false;
    const listing = await provider.inventory.listHost('h1');
    expect(listing.images.map((image) => image.volume)).toEqual(['base-t-img.qcow2']);
    expect(await failure(provider.inventory.evictImage({ host: 'h1', volume: 'base-t-img.qcow2' }))).toBeInstanceOf(Error);
    expect(hypervisor.count('storageVolDelete')).toBe(0);
    expect(hypervisor.volume('base-t-img.qcow2')).toBeDefined();
  });
});

describe("the runtime's providers", () => {
  it("are built with the replica's leadership, and the kvm2 factory fences its SSH backend with it", async () => {
    const dir = tempDir();
    const contexts: ProviderFactoryContext[] = [];
    const registry = new ProviderRegistry();
    registry.register('kvm2', (entry, context) => {
      contexts.push(context);
      return kvm2Factory(entry as Parameters<typeof kvm2Factory>[0], context);
    });
    const runtime = createRuntime({
      settings: settingsFromEnv({ DATA_DIR: dir.path, PROVIDERS_CONFIG: join(dir.path, 'providers.yaml'), PROBE_INTERVAL: '1h', GC_INTERVAL: '1h' }),
      registry,
      configLoader: async () => [{ ...makeEntry({ mirror }), name: 'kvm2-home' }],
      logger: silentLogger(),
      metrics: createMetrics(),
      probe: async () => ({ healthy: false, reason: 'ConnectionFailed', message: 'stub', latencyMs: 0 }),
    });
    try {
      await runtime.start();
      const mayAct = contexts[0]?.mayAct;
      expect(mayAct?.()).toBe(true);
      // A provider of a replica that does not lead refuses before it dials (the host is made up).
      const { provider } = await kvm2Factory(
        { ...makeEntry({ mirror }), name: 'kvm2-x' },
        { logger: silentLogger(), lasting: (create) => create(), mayAct: () => false },
      );
      const refused = await failure(provider.get('hosts/h1/domains/proxy-x'));
      expect((refused as Error).message).toContain('no longer leads');
      await runtime.stop();
      expect(mayAct?.()).toBe(false);
    } finally {
      await runtime.stop();
      dir.remove();
    }
  });
});
