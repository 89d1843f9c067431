// A config reload while a base image is uploading: the changed entry's new provider shares the old
// one's locks and download progress, so a Create on it waits for the upload instead of deleting
// the half-written base; the old provider is closed only once its upload is done. One download,
// the base intact and complete.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { settingsFromEnv } from '@/server/control/settings';
import type { Kvm2Entry } from '@/server/providers/config';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import { createKvm2Provider, type Kvm2Provider } from '@/server/providers/kvm2/provider';
import { newKvm2SharedState } from '@/server/providers/kvm2/shared-state';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime, type Runtime } from '@/server/runtime';
import { createMetrics } from '@/server/telemetry/metrics';
import { managedProxy, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { makeEntry, testBudgets, testImage, testImageDigest, TestMirror } from './kvm2-fixture';

const mirror = new TestMirror();
let release: () => void = () => {};
beforeAll(async () => {
  await mirror.start();
  // Half the image at once, the rest when the test releases it.
  mirror.routes.set('/held.qcow2', (req, res) => {
    res.writeHead(200, { 'content-length': testImage.length });
    if (req.method === 'HEAD') return void res.end();
    const half = testImage.length / 2;
    res.write(testImage.subarray(0, half));
    const released = new Promise<void>((resolve) => (release = resolve));
    void released.then(() => res.end(testImage.subarray(half)));
  });
});
afterAll(() => mirror.stop());

let dir: ReturnType<typeof tempDir> | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  release();
  await runtime?.stop();
  dir?.remove();
});

describe('a config reload during a download', () => {
  it('keeps one download: the changed entry waits for the upload in flight, and the base stays whole', async () => {
    dir = tempDir();
    const hypervisor = new FakeHypervisor();
    const built: Kvm2Provider[] = [];
    const closed: Kvm2Provider[] = [];
    const registry = new ProviderRegistry();
    // Who asked for an image lock: the gate that says a Create has got as far as the download.
    const imageLockRequests: string[] = [];
    const sharedWithLockLog = () => {
      const shared = newKvm2SharedState();
      const run = shared.imageLocks.run.bind(shared.imageLocks);
      shared.imageLocks.run = (key, work, signal) => {
        imageLockRequests.push(key);
        return run(key, work, signal);
      };
      return shared;
    };
    registry.register('kvm2', (entry, context) => {
      const provider = createKvm2Provider({
        settings: withDefaults(entry as Kvm2Entry),
        logger: context.logger,
        backend: new FakeHostBackend({ h1: hypervisor }),
        budgets: testBudgets,
        shared: context.lasting(sharedWithLockLog),
      });
      built.push(provider);
      return { provider, close: () => provider.close().then(() => void closed.push(provider)) };
    });
    const base = { ...makeEntry({ mirror, imagePath: '/held.qcow2', sha256: testImageDigest }), name: 'kvm2-home' };
    let entries: Kvm2Entry[] = [base];
    runtime = createRuntime({
      settings: settingsFromEnv({ DATA_DIR: dir.path, PROVIDERS_CONFIG: join(dir.path, 'providers.yaml'), PROBE_INTERVAL: '1h', GC_INTERVAL: '1h' }),
      registry,
      configLoader: async () => entries,
      logger: silentLogger(),
      metrics: createMetrics(),
      probe: async () => ({ healthy: false, reason: 'ConnectionFailed', message: 'stub', latencyMs: 0 }),
    });
    await runtime.start();
    const placement = { zone: 'h1', machineType: 'small', image: 'img' };
    await runtime.services.proxies.create(managedProxy('alpha', { provider: 'kvm2-home', placement }));
    const [first] = built;
    await expect.poll(() => first?.downloads.list()[0]?.doneBytes ?? 0, { message: 'the upload is under way', timeout: 5_000 }).toBeGreaterThan(0);

    // The entry changes mid-upload: a new provider, sharing the download in flight.
    entries = [{ ...base, kvm2: { ...base.kvm2, machineTypes: { ...base.kvm2.machineTypes, large: { vcpus: 2, memoryMiB: 512 } } } }];
    expect(await runtime.services.config.reload()).toBe(true);
    const second = runtime.services.providers.get('kvm2-home') as Kvm2Provider;
    expect(second).not.toBe(first);
    expect(second.downloads.list()).toMatchObject([{ host: 'h1', totalBytes: testImage.length }]);

    // A Create on the new provider for the same image waits for the upload; nothing is deleted.
    await runtime.services.proxies.create(managedProxy('beta', { provider: 'kvm2-home', placement }));
    await expect.poll(() => imageLockRequests.length, { message: "beta's Create asks for the image lock", timeout: 5_000 }).toBe(2);
    const [baseVolume, marker] = ['base-kvm2-home-img.qcow2', 'base-kvm2-home-img.qcow2.sha256'];
    expect(hypervisor.volume(baseVolume)).toBeDefined();
    expect(hypervisor.volume(marker)).toBeUndefined();
    expect(closed).toEqual([]);

    release();
    const recorded = async () =>
      (await Promise.all(['alpha', 'beta'].map((name) => runtime!.services.proxies.get(name)))).every((view) => view.status.providerID !== undefined);
    await expect.poll(recorded, { message: 'both Proxies have their instance', timeout: 5_000 }).toBe(true);
    await expect.poll(() => closed.includes(first as Kvm2Provider), { message: 'the old provider is closed after its upload', timeout: 5_000 }).toBe(true);
    expect(mirror.gets('/held.qcow2')).toBe(1);
    expect(hypervisor.volume(baseVolume)?.content.equals(testImage)).toBe(true);
    expect(hypervisor.volume(marker)?.content.toString()).toBe(testImageDigest);
    expect(second.downloads.list()).toEqual([]);
    expect(closed).not.toContain(second);
  });
});
