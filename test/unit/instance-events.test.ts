// Instance changes reported by a provider queue the owning Proxy at once: only a Managed Proxy on
// that provider whose instance it is (by name, and by providerID once one is recorded), found
// through the store's index on the instance name; a watch that was re-established resyncs
// everything; stopping ends the watches; and in the runtime the watches follow config reloads, and
// a reported stop is acted on long before the next resync.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InstanceEvents } from '@/server/control/instance-events';
import { instanceName } from '@/server/control/names';
import { settingsFromEnv } from '@/server/control/settings';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime, type Runtime } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { controlPlane, type Harness, managedProxy, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';
import { nextTurn } from '@/test/support/wait';

interface LogLine {
  msg: string;
  [key: string]: unknown;
}

let harness: Harness | undefined;
let runtime: Runtime | undefined;
let dir: ReturnType<typeof tempDir> | undefined;

afterEach(async () => {
  await harness?.close();
  await runtime?.stop();
  dir?.remove();
  harness = runtime = dir = undefined;
});

/** Two fake providers with one running Proxy each, and the module under test over them. */
async function setup() {
  const first = new FakeProvider({ name: 'fake-1' });
  const second = new FakeProvider({ name: 'fake-2' });
  harness = await controlPlane({ providers: [first, second] });
  await harness.proxies.create(managedProxy('alpha'));
  await harness.proxies.create(managedProxy('beta', { provider: 'fake-2' }));
  await harness.proxies.create({ name: 'static', mode: 'Static', address: '192.0.2.10', port: 3128 });
  await harness.settle();
  const queued: string[] = [];
  const resyncs: number[] = [];
  const logs: LogLine[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) } });
  const events = new InstanceEvents({
    store: harness.store,
    providers: harness.providers,
    logger,
    enqueue: (name) => queued.push(name),
    resyncAll: async () => void resyncs.push(Date.now()),
  });
  events.start();
  return { first, second, events, queued, resyncs, logs };
}

describe('instance events', () => {
  it('an instance change queues its Proxy once, and logs the provider, target, instance and event', async () => {
    const { first, events, queued, logs } = await setup();
    expect(first.watchers.size).toBe(1);
    first.emitChange(instanceName('alpha'), 'Stopped/Destroyed');
    // The owner is looked up in the store, so the queueing follows by a few awaits.
    await vi.waitFor(() => expect(queued).toEqual(['alpha']));
    expect(logs.filter((line) => line.msg === 'instance event; reconciling the Proxy')).toEqual([
      expect.objectContaining({ provider: 'fake-1', target: 'host-a', instance: instanceName('alpha'), event: 'Stopped/Destroyed', proxy: 'alpha' }),
    ]);
    await events.stop();
  });

  it('ignores foreign instances, another provider’s Proxy, and a namesake of the recorded instance', async () => {
    const { first, second, events, queued } = await setup();
    first.emitChange('web-1', 'Stopped/Destroyed');
    first.emitChange(instanceName('static'), 'Stopped/Destroyed');
    first.emitChange(instanceName('beta'), 'Stopped/Destroyed'); // beta lives on fake-2
    for (const watcher of first.watchers) {
      watcher.changed({ providerID: `elsewhere/${instanceName('alpha')}`, name: instanceName('alpha'), target: 'host-b', event: 'Stopped/Destroyed' });
    }
    second.emitChange(instanceName('beta'), 'Crashed');
    // Looked up in the order they came: once beta is queued, the ones before it were ignored.
    await vi.waitFor(() => expect(queued).toContain('beta'));
    expect(queued).toEqual(['beta']);
    await events.stop();
  });

  it('finds the owning Proxy through the store’s instance-name index, reading no other Proxy', async () => {
    const { first, events, queued } = await setup();
    const { proxies } = harness!.store;
    const indexed = vi.spyOn(proxies, 'byInstanceName');
    const everyName = vi.spyOn(proxies, 'names');
    const everyRecord = vi.spyOn(proxies, 'list');
    first.emitChange(instanceName('alpha'), 'Suspended/Paused');
    first.emitChange('web-1', 'Suspended/Paused');
    await vi.waitFor(() => expect(indexed).toHaveBeenCalledTimes(2));
    await vi.waitFor(() => expect(queued).toEqual(['alpha']));
    expect(indexed.mock.calls).toEqual([[instanceName('alpha')], ['web-1']]);
    expect(everyName).not.toHaveBeenCalled();
    expect(everyRecord).not.toHaveBeenCalled();
    await events.stop();
  });

  it('a re-established watch (changes missed) resyncs every Proxy', async () => {
    const { first, events, resyncs } = await setup();
    first.emitMissed();
    expect(resyncs).toHaveLength(1);
    await events.stop();
  });

  it('stop ends every watch: later changes queue nothing', async () => {
    const { first, second, events, queued } = await setup();
    await events.stop();
    expect(first.watchers.size).toBe(0);
    expect(second.watchers.size).toBe(0);
    first.emitChange(instanceName('alpha'), 'Stopped/Destroyed');
    expect(queued).toEqual([]);
  });

  it('a provider without watchInstances is left to the resync; one whose watch throws is logged', async () => {
    const plain = new FakeProvider({ name: 'plain' });
    Object.assign(plain, { watchInstances: undefined });
    const broken = new FakeProvider({ name: 'broken' });
    broken.watchInstances = () => {
      throw new Error('no event support');
    };
    const logs: LogLine[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) } });
    harness = await controlPlane({ providers: [plain, broken] });
    const events = new InstanceEvents({
      store: harness.store,
      providers: harness.providers,
      logger,
      enqueue: () => undefined,
      resyncAll: async () => undefined,
    });
    events.start();
    expect(logs).toEqual([
      expect.objectContaining({ provider: 'broken', error: 'no event support', msg: 'watching instances failed; changes are seen at the next resync' }),
    ]);
    await events.stop();
  });
});

describe('instance events in the runtime', () => {
  function start(built: FakeProvider[]) {
    dir = tempDir();
    const configPath = join(dir.path, 'providers.yaml');
    writeFileSync(configPath, JSON.stringify([{ name: 'fake-1', type: 'fake' }]));
    const registry = new ProviderRegistry();
    registry.register('fake', (entry) => {
      const provider = new FakeProvider({ name: entry.name });
      built.push(provider);
      return { provider, close: () => provider.close() };
    });
    // Resync and provisioning polls an hour apart: only the event can explain a pass.
    const settings = settingsFromEnv({
      DATA_DIR: join(dir.path, 'data'),
      PROVIDERS_CONFIG: configPath,
      RESYNC_INTERVAL: '1h',
      PROVISIONING_POLL_INTERVAL: '1h',
      GC_INTERVAL: '1h',
      PROBE_INTERVAL: '1h',
    });
    const configLoader = async (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Array<{ name: string; type: string }>;
    runtime = createRuntime({
      settings,
      registry,
      configLoader,
      logger: silentLogger(),
      metrics: createMetrics(),
      probe: async () => ({ healthy: true, reason: 'ProxyAnswered', message: 'stub', latencyMs: 1 }),
    });
    return { runtime, configPath };
  }

  const up = (rt: Runtime, message: string) =>
    expect.poll(async () => (await rt.services.proxies.get('alpha')).status.phase, { message, timeout: 2_000, interval: 10 }).toMatch(/^(Running|Ready)$/);
  const reasons = async (rt: Runtime, name: string) => (await rt.services.proxies.events(name)).map((event) => event.reason);
  const countOf = async (rt: Runtime, name: string, reason: string) =>
    (await rt.services.proxies.events(name)).filter((event) => event.reason === reason).reduce((sum, event) => sum + event.count, 0);

  it('a stop reported by the provider is reconciled at once; a reload watches the new providers and stops the old watches', async () => {
    const built: FakeProvider[] = [];
    const { runtime: rt, configPath } = start(built);
    await rt.start();
    await rt.services.proxies.create(managedProxy('alpha'));
    await up(rt, 'alpha runs');
    const [before] = built;
    if (!before) throw new Error('no provider was built');
    expect(before.watchers.size).toBe(1);

    const domain = instanceName('alpha');
    before.setState(`fake/${domain}`, 'Stopped');
    await nextTurn();
    expect(await reasons(rt, 'alpha')).not.toContain('InstanceStopped');
    before.emitChange(domain, 'Stopped/Destroyed');
    await expect.poll(() => reasons(rt, 'alpha'), { message: 'the reported stop is reconciled', timeout: 2_000, interval: 10 }).toContain('InstanceStopped');
    await up(rt, 'alpha runs again');

    // A reload that keeps fake-1 (unchanged entry) and adds fake-2: one watch on each, no more.
    writeFileSync(
      configPath,
      JSON.stringify([
        { name: 'fake-1', type: 'fake' },
        { name: 'fake-2', type: 'fake' },
      ]),
    );
    expect(await rt.services.config.reload()).toBe(true);
    expect(built.map((provider) => [provider.name, provider.watchers.size])).toEqual([
      ['fake-1', 1],
      ['fake-2', 1],
    ]);

    // A reload that changes fake-1's entry: its new provider is watched, the old one no longer.
    writeFileSync(
      configPath,
      JSON.stringify([
        { name: 'fake-1', type: 'fake', edited: true },
        { name: 'fake-2', type: 'fake' },
      ]),
    );
    expect(await rt.services.config.reload()).toBe(true);
    const after = built[2];
    expect(after?.name).toBe('fake-1');
    expect(before.watchers.size).toBe(0);
    expect(after?.watchers.size).toBe(1);
    // The new fake starts empty: the reload's pass recreates alpha there first.
    await expect
      .poll(() => after?.instances.get(`fake/${domain}`)?.state, { message: 'alpha is recreated on the new provider', timeout: 2_000, interval: 10 })
      .toBe('Running');
    after?.setState(`fake/${domain}`, 'Stopped');
    const stops = await countOf(rt, 'alpha', 'InstanceStopped');
    after?.emitChange(domain, 'Crashed');
    await expect
      .poll(() => countOf(rt, 'alpha', 'InstanceStopped'), { message: 'the stop reported by the new provider is reconciled', timeout: 2_000, interval: 10 })
      .toBeGreaterThan(stops);

    await rt.stop();
    expect(built.map((provider) => provider.watchers.size)).toEqual([0, 0, 0]);
  });
});
