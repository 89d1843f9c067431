// Log lines carry one key per field (no second `name` or `host` hidden by JSON.parse), every line
// about an instance carries `host` and the domain `name` (the not-found and failure lines
// included), and components name themselves under `logger`, never `name`.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { settingsFromEnv } from '@/server/control/settings';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { ProviderRegistry } from '@/server/providers/registry';
import type { Kvm2Entry } from '@/server/providers/config';
import { createRuntime, type Runtime } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { managedProxy, tempDir } from '@/test/fakes/control-plane';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { makeEntry, makeHarness, providerIdOf, TestMirror } from './kvm2-fixture';
import { duplicateKeys } from './log-keys';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
const withDuplicates = (lines: string[]) => lines.map((line) => [JSON.parse(line).msg, duplicateKeys(line)]).filter(([, keys]) => keys.length > 0);

describe('the kvm2 provider log lines', () => {
  it('write each key once, through a create with a download, get, list, delete, not-found and check', async () => {
    const harness = makeHarness({ mirror });
    const instance = await harness.provider.create(harness.request('proxy-a'));
    await harness.provider.get(instance.providerID);
    await harness.provider.listByTag('managed');
    await harness.provider.delete(instance.providerID);
    await harness.provider.get(instance.providerID).catch(() => undefined);
    await harness.provider.check();
    expect(harness.rawLogs.length).toBeGreaterThan(10);
    expect(withDuplicates(harness.rawLogs)).toEqual([]);
    // the download lines are about the instance the image is fetched for
    for (const msg of ['fetching base image into host pool', 'base image cached']) {
      expect(harness.logs.find((line) => line.msg === msg)).toMatchObject({ provider: 't', host: 'h1', name: 'proxy-a' });
    }
  });

  it('name host and domain on `kvm2 domain not found`', async () => {
    const harness = makeHarness({ mirror });
    await harness.provider.get(providerIdOf('h1', 'proxy-gone')).catch(() => undefined);
    expect(harness.logs.find((line) => line.msg === 'kvm2 domain not found')).toMatchObject({
      host: 'h1',
      name: 'proxy-gone',
      id: providerIdOf('h1', 'proxy-gone'),
    });
    expect(withDuplicates(harness.rawLogs)).toEqual([]);
  });

  it.each(['get', 'delete', 'create'] as const)('name host and domain on the failure line of %s', async (op) => {
    const harness = makeHarness({ mirror });
    harness.backend.unreachable.add('h1');
    const id = providerIdOf('h1', 'proxy-b');
    const call = op === 'create' ? harness.provider.create(harness.request('proxy-b')) : harness.provider[op](id);
    await call.catch(() => undefined);
    expect(harness.logs.find((line) => line.msg === 'kvm2 backend call failed')).toMatchObject({ op, host: 'h1', name: 'proxy-b' });
    expect(withDuplicates(harness.rawLogs)).toEqual([]);
  });
});

describe('the runtime log lines', () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.stop();
    dir?.remove();
  });

  it('name the component under `logger`, so a domain `name` is never written twice', async () => {
    dir = tempDir();
    const raw: string[] = [];
    const root = createLogger({ level: 'trace', destination: { write: (line: string) => void raw.push(line) } });
    const hypervisor = new FakeHypervisor();
    const entry = makeEntry({ mirror, hosts: ['host-a'] });
    const registry = new ProviderRegistry();
    registry.register('kvm2', (configured, context) => {
      const provider = createKvm2Provider({
        settings: withDefaults(configured as Kvm2Entry),
        logger: context.logger,
        backend: new FakeHostBackend({ 'host-a': hypervisor }),
      });
      return { provider, close: () => provider.close() };
    });
    runtime = createRuntime({
      // The stub probe below never fetches it; only its redaction in the start line counts.
      settings: settingsFromEnv({
        DATA_DIR: dir.path,
        PROVIDERS_CONFIG: join(dir.path, 'providers.yaml'),
        PROBE_URL: 'http://probe:s3cret@192.0.2.7/probe?token=t0k',
      }),
      registry,
      configLoader: async () => [{ ...entry, name: 'kvm2-home' }],
      logger: root,
      metrics: createMetrics(),
      probe: async () => ({ healthy: false, reason: 'ConnectionFailed', message: 'stub', latencyMs: 0 }),
    });
    await runtime.start();
    runtime.services.proxies.create(managedProxy('alpha', { provider: 'kvm2-home', placement: { zone: 'host-a', machineType: 'small', image: 'img' } }));
    await expect
      .poll(() => parsed(raw).some((line) => line.msg === 'kvm2 domain ensured running'), { message: 'the Create ran', timeout: 3_000, interval: 10 })
      .toBe(true);

    expect(withDuplicates(raw)).toEqual([]);
    const lines = parsed(raw);
    const ensured = lines.find((line) => line.msg === 'kvm2 domain ensured running');
    expect(ensured).toMatchObject({ logger: 'kvm2', provider: 'kvm2-home', host: 'host-a', name: expect.stringMatching(/^proxy-[0-9a-f]{16}$/) });
    expect(lines.find((line) => line.msg === 'control plane started')).toMatchObject({ logger: 'control-plane', probeUrl: 'http://192.0.2.7/probe' });
    expect(raw.join('')).not.toMatch(/s3cret|t0k/);
    expect(lines.filter((line) => line.name === 'control-plane')).toEqual([]);
  });
});
