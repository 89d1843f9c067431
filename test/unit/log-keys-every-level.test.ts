// Every key once on every line, at every level, through the loggers the server really uses: the
// kvm2 provider's lines with each libvirt call observed as on a real host (observe.ts adds a
// `libvirt call` line per RPC at debug, with the call's detail at trace), over pino's own base
// fields (`pid`, `hostname`). A hypervisor's host name written as `hostname` collided with pino's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import type { FreshConnection, HostBackend, LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { observe } from '@/server/providers/kvm2/observe';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { createLogger, type Logger } from '@/server/telemetry/logger';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { fixedNow, makeEntry, providerIdOf, testBudgets, TestMirror } from './kvm2-fixture';
import { duplicateKeys } from './log-keys';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

/** The fake hosts, each call observed the way hosts.ts observes a real connection. */
class ObservedBackend implements HostBackend {
  constructor(
    private readonly inner: FakeHostBackend,
    private readonly logger: Logger,
  ) {}
  private observed(host: string, api: LibvirtAPI): LibvirtAPI {
    return observe(api, { host, logger: this.logger.child({ host }) });
  }
  async pooled(host: string): Promise<LibvirtAPI> {
    return this.observed(host, await this.inner.pooled(host));
  }
  async fresh(host: string): Promise<FreshConnection> {
    const fresh = await this.inner.fresh(host);
    return { ...fresh, api: this.observed(host, fresh.api) };
  }
  closeAll(): Promise<void> {
    return this.inner.closeAll();
  }
}

describe.each(['trace', 'debug', 'info', 'warn'])('log lines at LOG_LEVEL=%s', (level) => {
  it('carry each key once through create with a download, get, list, delete, not-found and check', async () => {
    const raw: string[] = [];
    const logger = createLogger({ level, destination: { write: (line: string) => void raw.push(line) } });
    const settings = withDefaults(makeEntry({ mirror }));
    const bound = logger.child({ logger: 'kvm2', provider: settings.name });
    const backend = new ObservedBackend(new FakeHostBackend({ h1: new FakeHypervisor() }), bound);
    const provider = createKvm2Provider({ settings, logger, backend, budgets: testBudgets, now: () => fixedNow });
    const instance = await provider.create({
      name: 'proxy-a',
      uid: 'uid-proxy-a',
      placement: { machineType: 'small', image: 'img' },
      cloudInit: '#cloud-config\n',
      port: 3128,
    });
    await provider.get(instance.providerID);
    await provider.listByTag('managed');
    await provider.delete(instance.providerID);
    await provider.get(providerIdOf('h1', 'proxy-a')).catch(() => undefined);
    await provider.check();
    await provider.close();

    if (level === 'trace' || level === 'debug') expect(raw.filter((line) => line.includes('"libvirt call"')).length).toBeGreaterThan(10);
    const lines = raw.map((line) => ({ msg: (JSON.parse(line) as { msg: string }).msg, twice: duplicateKeys(line) }));
    expect(lines.filter((line) => line.twice.length > 0)).toEqual([]);
    if (level === 'trace') {
      const hostnameCall = raw.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.rpc === 'ConnectGetHostname');
      expect(hostnameCall).toMatchObject({ hypervisorHostname: expect.any(String), hostname: expect.any(String) });
    }
  });
});
