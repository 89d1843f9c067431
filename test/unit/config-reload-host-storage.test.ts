// A hand edit of the providers config that changes the pool or socket of a host Proxies use is
// refused by the reload like an invalid file: the running config stays (the provider keeps the old
// pool, so their Delete still finds their overlay and seed), the refusal is logged and shown as
// the config's last error naming the host, the change and the Proxies; once no Proxy uses the
// host, the same file applies at the next reload.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { settingsFromEnv } from '@/server/control/settings';
import type { Kvm2Entry } from '@/server/providers/config';
import { kvm2StorageChanges } from '@/server/providers/kvm2/host-storage';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import { createKvm2Provider, type Kvm2Provider } from '@/server/providers/kvm2/provider';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime, type Runtime } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';

let dir: ReturnType<typeof tempDir> | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.stop();
  dir?.remove();
});

const configText = (hostB: string) =>
  `- name: home\n  type: kvm2\n  kvm2:\n    sshKeyFile: /dev/null\n    insecureIgnoreHostKey: true\n    machineTypes:\n      small: {vcpus: 1, memoryMiB: 256}\n    images:\n      debian: {url: "http://mirror.invalid/d.qcow2"}\n    hosts:\n      - name: a\n        address: a.lan\n        user: virt\n        bridge: br0\n      - name: b\n        address: b.lan\n        user: virt\n        bridge: br0\n${hostB}`;

describe('a hand edit of a host in use', () => {
  it('is refused by the reload, keeping the running pool and naming the Proxies, and applies once they are gone', async () => {
    dir = tempDir('reload-storage-');
    const path = join(dir.path, 'providers.yaml');
    writeFileSync(path, configText(''));
    const registry = new ProviderRegistry();
    registry.register('kvm2', (entry, context) => {
      const provider = createKvm2Provider({
        settings: withDefaults(entry as Kvm2Entry),
        logger: context.logger,
        backend: new FakeHostBackend({ a: new FakeHypervisor(), b: new FakeHypervisor() }),
      });
      return { provider, close: () => provider.close() };
    });
    registry.registerStorageChanges('kvm2', kvm2StorageChanges);
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
    runtime = createRuntime({
      settings: settingsFromEnv({ DATA_DIR: dir.path, PROVIDERS_CONFIG: path, PROBE_INTERVAL: '1h', GC_INTERVAL: '1h', RESYNC_INTERVAL: '1h' }),
      registry,
      logger,
      metrics: createMetrics(),
      probe: async () => ({ healthy: false, reason: 'ConnectionFailed', message: 'stub', latencyMs: 0 }),
    });
    await runtime.start();
    const spec = (zone: string) => ({
      mode: 'Managed' as const,
      provider: 'home',
      placement: { zone, machineType: 'small', image: 'debian' },
      cloudInit: '',
      port: 3128,
      labels: {},
    });
    await runtime.store.proxies.insert({ uid: 'uid-p1', name: 'p1', spec: spec('b'), now: new Date().toISOString() });
    await runtime.store.proxies.insert({ uid: 'uid-p2', name: 'p2', spec: spec('a'), now: new Date().toISOString() });
    const poolOfB = () => (runtime?.services.providers.get('home') as Kvm2Provider).settings.hosts.find((host) => host.name === 'b')?.pool;
    expect(poolOfB()).toBe('default');

    writeFileSync(path, configText('        pool: fast\n'));
    expect(await runtime.services.config.reload()).toBe(false);
    expect(poolOfB()).toBe('default');
    const issues = runtime.services.config.status().lastError?.issues ?? [];
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain('provider "home"');
    expect(issues[0]).toContain('host "b"');
    expect(issues[0]).toContain('pool from "default" to "fast"');
    expect(issues[0]).toContain('p1');
    expect(issues[0]).not.toContain('p2');
    expect(lines.some((line) => line.level === 40 && String(line.msg).includes('keeping the running config'))).toBe(true);

    // p1 goes (its Delete ran against the old pool); the same file now applies.
    await runtime.store.proxies.remove('uid-p1');
    expect(await runtime.services.config.reload()).toBe(true);
    expect(poolOfB()).toBe('fast');
    expect(runtime.services.config.status().lastError).toBeUndefined();
  });
});
