import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ConfigLoader } from '@/server/control/config-reload';
import { settingsFromEnv } from '@/server/control/settings';
import { ProvidersConfigError } from '@/server/providers/config';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime, type Runtime } from '@/server/runtime';
import { createMetrics } from '@/server/telemetry/metrics';
import { managedProxy, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

// The fakes' addresses are documentation ranges: nothing may be sent there.
const noNetworkProbe = async () => ({ healthy: true, reason: 'ProxyAnswered' as const, message: 'stub', latencyMs: 1 });

let dir: ReturnType<typeof tempDir>;
let runtime: Runtime | undefined;

afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
  dir?.remove();
});

// The fake type's config: a YAML list of {name, type: fake}; an entry without a name is invalid.
const fakeLoader: ConfigLoader = async (path) => {
  const { readFile } = await import('node:fs/promises');
  const entries = (parse(await readFile(path, 'utf8')) ?? []) as Array<{ name?: string; type: string }>;
  const issues = entries.flatMap((entry, index) => (entry.name ? [] : [`providers[${index}]: name is required`]));
  if (issues.length > 0) throw new ProvidersConfigError({ source: path, issues });
  return entries as Array<{ name: string; type: string }>;
};

function fakeRegistry(built: FakeProvider[]) {
  const registry = new ProviderRegistry();
  registry.register('fake', (entry) => {
    const provider = new FakeProvider({ name: entry.name });
    built.push(provider);
    return { provider, close: () => provider.close() };
  });
  return registry;
}

function runtimeOver(options: { configText?: string; loader?: ConfigLoader; registry: ProviderRegistry }) {
  dir = tempDir();
  const configPath = join(dir.path, 'providers.yaml');
  if (options.configText !== undefined) writeFileSync(configPath, options.configText);
  const settings = settingsFromEnv({
    DATA_DIR: join(dir.path, 'data'),
    PROVIDERS_CONFIG: configPath,
    CONFIG_RELOAD_DELAY: '20ms',
    GC_INTERVAL: '1h',
    PROBE_INTERVAL: '1h',
  });
  runtime = createRuntime({
    settings,
    registry: options.registry,
    configLoader: options.loader,
    logger: silentLogger(),
    metrics: createMetrics(),
    probe: noNetworkProbe,
  });
  return { runtime, configPath };
}

const up = async (rt: Runtime, name: string) => ['Running', 'Ready'].includes((await rt.services.proxies.get(name)).status.phase);

describe('providers config hot reload', () => {
  it('applies a valid file when it lands: an unchanged entry keeps its provider, a changed one is replaced and the old one closed', async () => {
    const built: FakeProvider[] = [];
    const { runtime: rt, configPath } = runtimeOver({ configText: '- {name: fake-1, type: fake}\n', loader: fakeLoader, registry: fakeRegistry(built) });
    await rt.start();
    await rt.services.proxies.create(managedProxy('alpha'));
    await expect.poll(() => up(rt, 'alpha'), { message: 'alpha runs', timeout: 5_000 }).toBe(true);
    await expect(rt.services.proxies.create(managedProxy('beta', { provider: 'fake-2' }))).rejects.toThrow(/not a configured provider/);

    writeFileSync(configPath, '- {name: fake-1, type: fake}\n- {name: fake-2, type: fake}\n');
    await expect.poll(() => rt.services.config.status().providers.length === 2, { message: 'the new config is applied', timeout: 5_000 }).toBe(true);
    expect(rt.services.providers.get('fake-1')).toBe(built[0]);
    expect(built[0]?.closed).toBe(false);
    expect(rt.services.config.status().providers).toEqual([
      { name: 'fake-1', type: 'fake', available: true },
      { name: 'fake-2', type: 'fake', available: true },
    ]);
    await rt.services.proxies.create(managedProxy('beta', { provider: 'fake-2' }));
    await expect.poll(() => up(rt, 'beta'), { message: 'beta runs on the new provider', timeout: 5_000 }).toBe(true);
    expect(built[0]?.callsOf('create')).toHaveLength(1);

    // fake-1 changes: a new provider, the old one closed; alpha is re-queued and, finding its
    // instance gone (a new fake), recreated on it.
    writeFileSync(configPath, '- {name: fake-1, type: fake, note: changed}\n- {name: fake-2, type: fake}\n');
    await expect.poll(() => built[0]?.closed, { message: 'the replaced fake-1 is closed', timeout: 5_000 }).toBe(true);
    expect(rt.services.providers.get('fake-1')).toBe(built[2]);
    expect(rt.services.providers.get('fake-2')).toBe(built[1]);
    await expect
      .poll(async () => (await up(rt, 'alpha')) && (built[2]?.instances.size ?? 0) === 1, { message: 'alpha runs on the new fake-1', timeout: 5_000 })
      .toBe(true);
  });

  it('keeps the running providers on an invalid file and reports every validation message', async () => {
    const built: FakeProvider[] = [];
    const { runtime: rt, configPath } = runtimeOver({ configText: '- {name: fake-1, type: fake}\n', loader: fakeLoader, registry: fakeRegistry(built) });
    await rt.start();
    writeFileSync(configPath, '- {type: fake}\n- {name: fake-2, type: fake}\n- {type: fake}\n');
    await expect.poll(() => rt.services.config.status().lastError !== undefined, { message: 'the bad file is seen', timeout: 5_000 }).toBe(true);
    expect(rt.services.config.status().lastError?.issues).toEqual(['providers[0]: name is required', 'providers[2]: name is required']);
    expect(rt.services.config.status().providers.map((provider) => provider.name)).toEqual(['fake-1']);
    expect(rt.services.providers.get('fake-1')).toBe(built[0]);
    expect(built[0]?.closed).toBe(false);

    writeFileSync(configPath, '- {name: fake-3, type: fake}\n');
    await expect.poll(() => rt.services.config.status().lastError === undefined, { message: 'the fixed file is applied', timeout: 5_000 }).toBe(true);
    expect(rt.services.config.status().providers.map((provider) => provider.name)).toEqual(['fake-3']);
  });

  it('starts with zero providers on an invalid kvm2 config, naming the block and path', async () => {
    const { runtime: rt } = runtimeOver({
      configText:
        '- name: kvm2-home\n  type: kvm2\n  kvm2:\n    sshKeyFile: /k\n    knownHostsFile: /kh\n    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}\n    hosts: [{name: lab1, address: "198.18.1.2:22", user: kvm2lab}]\n',
      registry: new ProviderRegistry(),
    });
    await rt.start();
    expect(rt.services.config.status().providers).toEqual([]);
    expect(rt.services.config.status().lastError?.issues).toEqual(['provider "kvm2-home": kvm2.hosts[0]: bridge is required']);
  });

  it('lists a kvm2 entry whose type has no factory registered as unavailable, with the reason', async () => {
    const { runtime: rt } = runtimeOver({
      configText:
        '- name: kvm2-home\n  type: kvm2\n  kvm2:\n    sshKeyFile: /k\n    knownHostsFile: /kh\n    machineTypes: {small: {vcpus: 1, memoryMiB: 512}}\n    hosts: [{name: lab1, address: "198.18.1.2:22", user: kvm2lab, bridge: br0}]\n',
      registry: new ProviderRegistry(),
    });
    await rt.start();
    expect(rt.services.config.status().providers).toEqual([
      { name: 'kvm2-home', type: 'kvm2', available: false, reason: 'provider "kvm2-home": type kvm2 has no implementation in this server yet' },
    ]);
    await rt.services.proxies.create(managedProxy('alpha', { provider: 'kvm2-home' }));
    await expect
      .poll(async () => (await rt.services.proxies.get('alpha')).status.conditions[0]?.reason === 'ProviderUnavailable', {
        message: 'alpha waits for its provider',
        timeout: 5_000,
      })
      .toBe(true);
  });

  it('runs with zero providers when PROVIDERS_CONFIG is not set', async () => {
    dir = tempDir();
    runtime = createRuntime({
      settings: settingsFromEnv({ DATA_DIR: dir.path }),
      registry: new ProviderRegistry(),
      logger: silentLogger(),
      metrics: createMetrics(),
      probe: noNetworkProbe,
    });
    await runtime.start();
    expect(runtime.services.config.status()).toEqual({ providers: [] });
    const edge = await runtime.services.proxies.create({ name: 'edge', mode: 'Static', address: '192.0.2.1' });
    expect(edge.port).toBe(3128);
  });
});
