// Boot capture survives a restart: a server restarted over the same store while a Proxy's VM is
// still booting (started by the previous process, no address yet) holds its console again after
// its first pass (even one that cannot read the VM yet), so the rest of the boot log lands in the
// buffer; a console another client holds meanwhile is left alone, never forced and not tried again
// on every pass.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { instanceName } from '@/server/control/names';
import { ErrTransient } from '@/server/providers/errors';
import { settingsFromEnv } from '@/server/control/settings';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime, type Runtime } from '@/server/runtime';
import { createMetrics } from '@/server/telemetry/metrics';
import { managedProxy, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let dir: ReturnType<typeof tempDir> | undefined;
const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.stop();
  dir?.remove();
  dir = undefined;
});

const providerID = `fake/${instanceName('alpha')}`;

/** A server process over the data dir; its fake provider reads the instances the previous one left. */
function serverProcess(dataDir: string, onProvider: (provider: FakeProvider) => void = () => {}): { runtime: Runtime; provider: () => FakeProvider } {
  let provider: FakeProvider | undefined;
  const registry = new ProviderRegistry();
  registry.register('fake', () => {
    // No address ever: the VM stays Provisioning, as one still running cloud-init does.
    provider = new FakeProvider({ name: 'fake-1', initialState: 'Provisioning', stateFile: join(dataDir, 'instances.json') });
    onProvider(provider);
    const built = provider;
    return { provider: built, close: () => built.close() };
  });
  const runtime = createRuntime({
    settings: settingsFromEnv({ DATA_DIR: dataDir, PROVIDERS_CONFIG: join(dataDir, 'providers.yaml'), PROVISIONING_POLL_INTERVAL: '20ms' }),
    registry,
    configLoader: async () => [{ name: 'fake-1', type: 'fake' }],
    logger: silentLogger(),
    metrics: createMetrics(),
  });
  runtimes.push(runtime);
  return {
    runtime,
    provider: () => {
      if (!provider) throw new Error('the provider was not built yet');
      return provider;
    },
  };
}

/** The first process creates the Proxy, captures the start of its boot, and stops. */
async function startedThenStopped(): Promise<string> {
  dir = tempDir();
  const first = serverProcess(dir.path);
  await first.runtime.start();
  await first.runtime.services.proxies.create(managedProxy('alpha'));
  await expect.poll(() => first.runtime.services.consoles.status('alpha').state).toBe('live');
  first.provider().consoles.of(providerID).print('BdsDxe: loading Boot0001\r\n');
  await expect.poll(() => first.runtime.services.consoles.consoleLog('alpha')).toContain('Boot0001');
  await first.runtime.stop();
  return dir.path;
}

describe('boot capture after a restart', () => {
  it('holds the console of a VM still booting again after the first pass; later output is in the buffer', async () => {
    const dataDir = await startedThenStopped();
    const second = serverProcess(dataDir);
    await second.runtime.start();
    expect((await second.runtime.services.proxies.get('alpha')).status.phase).toBe('Provisioning');
    await expect.poll(() => second.runtime.services.consoles.status('alpha').state, { message: 'the capture reopened' }).toBe('live');
    const device = second.provider().consoles.of(providerID);
    device.print("cloud-init[301]: Cloud-init v. 22.4.2 running 'modules:final'\r\n");
    await expect.poll(() => second.runtime.services.consoles.consoleLog('alpha')).toContain("Cloud-init v. 22.4.2 running 'modules:final'");
    // The passes that follow find it held: no more opens.
    const gets = second.provider().callsOf('get').length;
    await expect.poll(() => second.provider().callsOf('get').length).toBeGreaterThan(gets + 3);
    expect(device.opens).toEqual([false]);
  });

  it('holds it again too when the VM cannot be read yet (no address source answers while it boots)', async () => {
    const dataDir = await startedThenStopped();
    const second = serverProcess(dataDir, (provider) => void provider.failAlways('get', new ErrTransient('domain is running but every address source failed')));
    await second.runtime.start();
    await expect.poll(() => second.runtime.services.consoles.status('alpha').state, { message: 'the capture reopened' }).toBe('live');
    expect((await second.runtime.services.proxies.get('alpha')).status.phase).toBe('Provisioning');
  });

  it('leaves a console another client holds alone: never forced, not tried again on every pass', async () => {
    const dataDir = await startedThenStopped();
    const second = serverProcess(dataDir, (provider) => void provider.consoles.of(providerID).holdElsewhere());
    await second.runtime.start();
    await expect.poll(() => second.runtime.services.consoles.status('alpha').state).toBe('busy');
    await expect.poll(() => second.provider().callsOf('get').length).toBeGreaterThan(5);
    expect(second.provider().consoles.of(providerID).opens).toEqual([false]);
  });
});
