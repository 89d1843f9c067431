// The provider as the control plane sees it: placement refused before any dial, the outcome and
// failure lines the spec names (with provider, host and name on instance lines, never the
// cloud-init), the RPC budgets of a cached Create and a Get, the virt type taken from the host,
// check() delegating to the health check, and the factory's startup warnings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainState } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { parseDomainXML } from '@/server/providers/kvm2/xml-parse';
import { createLogger } from '@/server/telemetry/logger';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { failureOf, makeEntry, makeHarness, providerIdOf, TestMirror, type LogLine } from './kvm2-fixture';

const mirror = new TestMirror();
beforeAll(() => mirror.start());
afterAll(() => mirror.stop());

describe('placement is checked before any host is dialled', () => {
  it.each([
    [{ zone: 'nowhere' }, 'placement.zone "nowhere" is not in kvm2.hosts'],
    [{ machineType: 'huge' }, 'placement.machineType "huge" is not in kvm2.machineTypes'],
    [{ image: 'debian-99' }, 'placement.image "debian-99" is neither a key in kvm2.images nor an http(s) URL'],
  ])('%j is permanent: %s', async (override, message) => {
    const harness = makeHarness({ mirror });
    const request = harness.request('proxy-p');
    const error = await failureOf(harness.provider.create({ ...request, placement: { ...request.placement, ...override } }));
    expect(errorClassOf(error)).toBe('permanent');
    expect(error?.message).toBe(message);
    expect(harness.backend.pooledDials).toBe(0);
  });

  it('with several hosts a zone is required', async () => {
    const harness = makeHarness({ mirror, hosts: ['h1', 'h2'] });
    const request = harness.request('proxy-p');
    const error = await failureOf(harness.provider.create({ ...request, placement: { ...request.placement, zone: undefined } }));
    expect(error?.message).toBe('placement.zone is required when kvm2.hosts lists more than one host');
    expect(harness.backend.pooledDials).toBe(0);
  });
});

describe('RPC budgets', () => {
  it('a Create with a cached image makes at most 25 RPCs, a Get at most 5', async () => {
    const harness = makeHarness({ mirror });
    harness.seedCache();
    await harness.provider.create(harness.request('proxy-count'));
    expect(harness.hypervisor.calls.length).toBeLessThanOrEqual(25);
    harness.hypervisor.resetCalls();
    await harness.provider.get(providerIdOf('h1', 'proxy-count'));
    expect(harness.hypervisor.calls.length).toBeLessThanOrEqual(5);
  });
});

describe('logs', () => {
  const secret = 'do-not-log-me';

  async function exercise(harness: ReturnType<typeof makeHarness>) {
    await harness.provider.create(harness.request('proxy-log'));
    await harness.provider.get(providerIdOf('h1', 'proxy-log'));
    await harness.provider.listByTag('managed');
    harness.hypervisor.failOnce('domainCreate', 'ErrInternalError');
    await harness.provider.create(harness.request('proxy-log-2')).catch(() => undefined);
    await harness.provider.delete(providerIdOf('h1', 'proxy-log'));
    await harness.provider.get(providerIdOf('h1', 'proxy-log')).catch(() => undefined);
  }

  it('name each outcome, carry provider everywhere and host and name on instance lines, and never the cloud-init', async () => {
    const harness = makeHarness({ mirror });
    await exercise(harness);
    const byMessage = (msg: string) => harness.logs.filter((line) => line.msg === msg);
    expect(byMessage('kvm2 domain ensured running')[0]).toMatchObject({ host: 'h1', name: 'proxy-log', id: providerIdOf('h1', 'proxy-log') });
    expect(byMessage('kvm2 domain fetched')[0]).toMatchObject({ host: 'h1', name: 'proxy-log', state: 'Provisioning', uid: 'uid-proxy-log' });
    expect(byMessage('kvm2 domains listed')[0]).toMatchObject({ hosts: 1, managed: 1 });
    expect(byMessage('kvm2 domain deleted')[0]).toMatchObject({ host: 'h1', id: providerIdOf('h1', 'proxy-log') });
    expect(byMessage('kvm2 domain not found')).toHaveLength(1);
    const failed = byMessage('kvm2 backend call failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ op: 'create', name: 'proxy-log-2', error: 'injected ErrInternalError' });
    for (const line of harness.logs) expect(line.provider).toBe('t');
    const instanceLines = harness.logs.filter((line: LogLine) => ['domain defined', 'seed volume uploaded', 'overlay volume created'].includes(line.msg));
    expect(instanceLines.length).toBeGreaterThanOrEqual(3);
    for (const line of instanceLines) expect(line).toMatchObject({ host: 'h1' });
    expect(JSON.stringify(harness.logs)).not.toContain(secret);
  });
});

describe('virt type', () => {
  it.each([
    [['qemu', 'kvm'], 'kvm'],
    [['qemu'], 'qemu'],
  ])('with virtType unset, a host offering %j gets %s domains', async (offered, expected) => {
    const hypervisor = new FakeHypervisor();
    hypervisor.virtTypes = offered;
    const harness = makeHarness({ mirror, virtType: null, hypervisors: { h1: hypervisor } });
    harness.seedCache();
    await harness.provider.create(harness.request('proxy-virt'));
    expect(parseDomainXML(hypervisor.domains.get('proxy-virt')?.xml ?? '').virtType).toBe(expected);
  });

  it('a configured virtType is used without asking the host', async () => {
    const harness = makeHarness({ mirror, virtType: 'qemu' });
    harness.seedCache();
    await harness.provider.create(harness.request('proxy-virt'));
    expect(harness.hypervisor.count('connectGetDomainCapabilities')).toBe(0);
    expect(parseDomainXML(harness.hypervisor.domains.get('proxy-virt')?.xml ?? '').virtType).toBe('qemu');
  });
});

describe('check and the factory', () => {
  it('check() reports one target per host, on fresh connections', async () => {
    const h1 = new FakeHypervisor();
    const harness = makeHarness({ mirror, hosts: ['h1', 'h2'], hypervisors: { h1, h2: new FakeHypervisor() } });
    harness.backend.unreachable.add('h2');
    const targets = await harness.provider.check();
    expect(targets.map((target) => [target.name, target.reason])).toEqual([
      ['h1', 'Reachable'],
      ['h2', 'Unreachable'],
    ]);
    expect(h1.calls.every((call) => call.connection.startsWith('fresh#'))).toBe(true);
    expect(harness.backend.pooledDials).toBe(0);
  });

  it('built from an entry, it applies the defaults and warns about a missing key file', async () => {
    const lines: LogLine[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) } });
    const entry = makeEntry({ mirror });
    entry.kvm2 = {
      ...entry.kvm2,
      sshKeyFile: '/nonexistent/id_ed25519',
      insecureIgnoreHostKey: false,
      knownHostsFile: '/nonexistent/known_hosts',
      diskSizeGb: undefined,
    };
    const hypervisor = new FakeHypervisor();
    const provider = createKvm2Provider({ entry, logger, backend: new FakeHostBackend({ h1: hypervisor }) });
    expect(provider).toMatchObject({ name: 't', type: 'kvm2' });
    expect(provider.settings.diskSizeGb).toBe(10);
    expect(lines.filter((line) => line.msg.startsWith('WARNING:')).map((line) => line.path)).toEqual(['/nonexistent/id_ed25519', '/nonexistent/known_hosts']);
    await provider.create({ name: 'proxy-f', uid: 'u', placement: { machineType: 'small', image: 'img' }, cloudInit: '', port: 1 });
    expect(hypervisor.domains.get('proxy-f')?.state).toBe(DomainState.Running);
    await provider.close();
  });
});
