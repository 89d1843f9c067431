import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyNotFoundError, ProxyValidationError } from '@/server/control/errors';
import { parseDuration, SettingsError, settingsFromEnv } from '@/server/control/settings';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime, getRuntime, type Runtime, startRuntimeOnce, stopRuntimeForTests } from '@/server/runtime';
import { createMetrics } from '@/server/telemetry/metrics';
import { managedProxy, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let dir: ReturnType<typeof tempDir> | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
  dir?.remove();
  dir = undefined;
});

const stubProbe = async () => ({ healthy: true, reason: 'TargetReachable' as const, message: 'stub', latencyMs: 3, egressIP: '203.0.113.9' });

function fakeRuntime() {
  dir = tempDir();
  const provider = new FakeProvider({ name: 'fake-1' });
  const registry = new ProviderRegistry();
  registry.register('fake', () => ({ provider, close: () => provider.close() }));
  runtime = createRuntime({
    settings: settingsFromEnv({ DATA_DIR: dir.path, PROVIDERS_CONFIG: join(dir.path, 'providers.yaml') }),
    registry,
    configLoader: async () => [{ name: 'fake-1', type: 'fake' }],
    logger: silentLogger(),
    metrics: createMetrics(),
    probe: stubProbe,
  });
  return { runtime, provider };
}

describe('the runtime', () => {
  it('takes a Proxy from create to Ready and serves it to discovery with its egress IP', async () => {
    const { runtime: rt, provider } = fakeRuntime();
    await rt.start();
    await rt.services.proxies.create(managedProxy('alpha', { labels: { pool: 'crawlers' } }));
    await rt.services.proxies.create(managedProxy('beta', { labels: { pool: 'other' } }));
    await expect.poll(async () => (await rt.services.proxies.list({ phase: 'Ready' })).length === 2, { timeout: 2_000 }).toBe(true);
    const alphaUid = (await rt.services.proxies.get('alpha')).uid;
    const alphaIp = [...provider.instances.values()].find((instance) => instance.uid === alphaUid)?.ip;
    expect(await rt.services.proxies.discover({ labels: { pool: 'crawlers' } })).toEqual([
      { name: 'alpha', url: `http://${alphaIp}:3128`, labels: { pool: 'crawlers' }, egressIP: '203.0.113.9' },
    ]);
    expect((await rt.services.proxies.get('alpha')).cloudInit).toEqual({ bytes: Buffer.byteLength('#cloud-config\npackages: [squid]\n') });
    expect(JSON.stringify(await rt.services.proxies.list())).not.toContain('packages: [squid]');
    expect(await rt.services.providers.list()).toMatchObject([{ name: 'fake-1', type: 'fake', available: true, targets: [{ name: 'host-a', ready: true }] }]);
    expect(await rt.services.metrics.registry.metrics()).toContain('proxy_operator_reconcile_total{outcome="ready"}');
  });

  it('answers bad input with the field, and a missing Proxy with a typed error', async () => {
    const { runtime: rt } = fakeRuntime();
    await rt.start();
    await expect(rt.services.proxies.create({ ...managedProxy('alpha'), provider: 'nope' })).rejects.toThrow(ProxyValidationError);
    const thrown = await (async () => {
      try {
        await rt.services.proxies.create({ ...managedProxy('Alpha') });
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(ProxyValidationError);
    expect((thrown as ProxyValidationError).fields.map((field) => field.path)).toEqual(['name']);
    await expect(rt.services.proxies.get('ghost')).rejects.toThrow(ProxyNotFoundError);
    expect(await rt.services.proxies.list()).toEqual([]);
  });

  it('stops cleanly: loops end, providers are closed, the store is closed', async () => {
    const { runtime: rt, provider } = fakeRuntime();
    await rt.start();
    provider.hangNext('create');
    await rt.services.proxies.create(managedProxy('alpha'));
    await expect.poll(() => provider.callsOf('create').length === 1, { timeout: 2_000 }).toBe(true);
    await rt.stop();
    expect(provider.closed).toBe(true);
    await expect(rt.store.sql.all('SELECT 1')).rejects.toThrow();
    runtime = undefined;
    // The abandoned Create is not the Proxy's fault: nothing about it was recorded.
    const { openStore } = await import('@/server/store');
    const reopened = await openStore({ dataDir: dir!.path });
    expect((await reopened.proxies.get('alpha'))?.status.lastError).toBeUndefined();
    await reopened.close();
  });

  it('starts once per process however often it is asked', async () => {
    dir = tempDir();
    const signalsBefore = { term: process.listeners('SIGTERM'), int: process.listeners('SIGINT') };
    const options = {
      settings: settingsFromEnv({ DATA_DIR: dir.path }),
      registry: new ProviderRegistry(),
      logger: silentLogger(),
      metrics: createMetrics(),
      probe: stubProbe,
    };
    const [first, second] = await Promise.all([startRuntimeOnce(options), startRuntimeOnce(options)]);
    expect(second).toBe(first);
    expect(await getRuntime()).toBe(first);
    runtime = first;
    for (const [signal, before] of [
      ['SIGTERM', signalsBefore.term],
      ['SIGINT', signalsBefore.int],
    ] as const) {
      for (const listener of process.listeners(signal)) if (!before.includes(listener)) process.removeListener(signal, listener);
    }
    await stopRuntimeForTests();
    runtime = undefined;
    // Stopped and forgotten: the next start is a new runtime.
    const next = await startRuntimeOnce(options);
    expect(next).not.toBe(first);
    runtime = next;
    await stopRuntimeForTests();
    runtime = undefined;
  });
});

describe('settings from the environment', () => {
  it('has the documented defaults', () => {
    expect(settingsFromEnv({})).toMatchObject({
      dataDir: './data',
      reconcileWorkers: 3,
      quotaRetryMs: 300_000,
      providerCheckIntervalMs: 60_000,
      providerCheckTimeoutMs: 15_000,
      backoffBaseMs: 1_000,
      backoffCapMs: 300_000,
      healthHistoryRetentionMs: 7 * 86_400_000,
    });
    expect(settingsFromEnv({}).probeUrl).toBeUndefined();
    // Unset: the sampler's own default, half the interval.
    expect(settingsFromEnv({}).statsSampleTimeoutMs).toBeUndefined();
    expect(settingsFromEnv({ STATS_SAMPLE_INTERVAL: '10s', STATS_SAMPLE_TIMEOUT: '10s' }).statsSampleTimeoutMs).toBe(10_000);
  });

  it.each([
    ['500ms', 500],
    ['15s', 15_000],
    ['15', 15_000],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
  ])('reads the duration %s', (text, ms) => {
    expect(parseDuration(text, 'X')).toBe(ms);
  });

  it.each([
    [{ PROVIDER_CHECK_TIMEOUT: 'soon' }, 'PROVIDER_CHECK_TIMEOUT'],
    [{ GC_INTERVAL: '0s' }, 'GC_INTERVAL'],
    [{ PROBE_URL: 'ftp://example.test/' }, 'PROBE_URL'],
    [{ RECONCILE_WORKERS: '0' }, 'RECONCILE_WORKERS'],
    [{ STATS_SAMPLE_TIMEOUT: '11s' }, 'STATS_SAMPLE_TIMEOUT'],
    [{ STATS_SAMPLE_TIMEOUT: 'soon' }, 'STATS_SAMPLE_TIMEOUT'],
  ])('refuses %j naming the variable', (env, variable) => {
    expect(() => settingsFromEnv(env)).toThrow(SettingsError);
    expect(() => settingsFromEnv(env)).toThrow(new RegExp(`^${variable}:`));
  });
});
