// The host backend over a real SSH forward (in-process ssh2 server) to a scripted libvirtd: one
// lazily dialled pooled connection per host, shared by concurrent callers, redialled after it
// dies; an abandoned call kills only the pooled link (its TCP connection really goes), the other
// calls in flight on it fail once as transient, and fresh connections are untouched.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateProvidersConfig, type Kvm2Entry } from '@/server/providers/config';
import { ErrPermanent, ErrTransient, errorClassOf } from '@/server/providers/errors';
import { defaultBudgets, type Budgets } from '@/server/providers/kvm2/backend';
import { classify } from '@/server/providers/kvm2/errors';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import type { HostBackend } from '@/server/providers/kvm2/libvirt-api';
import { startFakeLibvirtd, type FakeLibvirtd } from './kvm2-fake-libvirtd';
import { closed, Resources, startDialScenario, type DialScenario } from './ssh-harness';
import { captureLogs } from '@/test/support/log-capture';

const resources = new Resources();
afterEach(() => resources.cleanup());

const dom = { name: 'proxy-a', uuid: Buffer.alloc(16, 1), id: 1 };

interface Setup {
  scenario: DialScenario;
  daemon: FakeLibvirtd;
  backend: HostBackend;
  lines: Array<Record<string, unknown>>;
}

async function setup(options: { budgets?: Partial<Budgets>; keyFile?: string } = {}): Promise<Setup> {
  const scenario = await startDialScenario(resources);
  const daemon = await startFakeLibvirtd(resources, scenario.dir);
  const [entry] = validateProvidersConfig([
    {
      name: 'kvm2-test',
      type: 'kvm2',
      kvm2: {
        sshKeyFile: options.keyFile ?? scenario.keyFile,
        knownHostsFile: scenario.knownHostsFile,
        machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
        hosts: [{ name: 'hv1', address: scenario.server.address, user: 'tester', bridge: 'br0', socket: daemon.path }],
      },
    },
  ]);
  const settings = withDefaults(entry as Kvm2Entry);
  const { lines, logger } = captureLogs('debug');
  const backend = createHostBackend({
    providerName: 'kvm2-test',
    settings,
    logger,
    budgets: { ...defaultBudgets, ...options.budgets },
  });
  resources.add(() => backend.closeAll());
  return { scenario, daemon, backend, lines };
}

describe('the pooled connection', () => {
  it('is dialled lazily, on the first call that needs it, and then reused', async () => {
    const { scenario, daemon, backend } = await setup();
    expect(scenario.server.sockets).toHaveLength(0);

    const first = await backend.pooled('hv1');
    expect(await first.connectGetHostname()).toBe('fake-hv');
    const again = await backend.pooled('hv1');

    expect(again).toBe(first);
    expect(scenario.server.sockets).toHaveLength(1);
    expect(daemon.count('connectOpen')).toBe(1);
  });

  it('is dialled once for concurrent callers, who share the result', async () => {
    const { scenario, daemon, backend } = await setup();
    daemon.hold('connectOpen');
    const callers = [backend.pooled('hv1'), backend.pooled('hv1'), backend.pooled('hv1')];
    await daemon.received('connectOpen');
    daemon.release();

    const [a, b, c] = await Promise.all(callers);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(scenario.server.sockets).toHaveLength(1);
    expect(daemon.count('connectOpen')).toBe(1);
  });

  it("ends one caller's wait with that caller's signal, while the dial goes on for the others", async () => {
    const { scenario, daemon, backend } = await setup();
    daemon.hold('connectOpen');
    const impatient = new AbortController();
    const waiting = backend.pooled('hv1', { signal: impatient.signal });
    const patient = backend.pooled('hv1');
    await daemon.received('connectOpen');

    impatient.abort(new Error('reconcile cancelled'));
    const err = await waiting.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErrTransient);

    daemon.release();
    const api = await patient;
    expect(await api.connectGetHostname()).toBe('fake-hv');
    expect(scenario.server.sockets).toHaveLength(1);
  });

  it('is redialled by the next caller after the link dies', async () => {
    const { scenario, daemon, backend, lines } = await setup();
    const first = await backend.pooled('hv1');
    await first.connectGetHostname();

    scenario.server.sockets[0]!.destroy(); // the host goes away under the connection
    const err = await first.connectGetHostname().catch((e: unknown) => e);
    expect(classify(err, { op: 'get' })).toBeInstanceOf(ErrTransient);

    const second = await backend.pooled('hv1');
    expect(second).not.toBe(first);
    expect(await second.connectGetHostname()).toBe('fake-hv');
    expect(scenario.server.sockets).toHaveLength(2);
    expect(daemon.count('connectOpen')).toBe(2);
    expect(lines.some((line) => line.msg === 'libvirt host connection lost')).toBe(true);
  });

  it('refuses a host that is not in the config, permanently', async () => {
    const { backend } = await setup();
    await expect(backend.pooled('gone')).rejects.toBeInstanceOf(ErrPermanent);
    await expect(backend.fresh('gone')).rejects.toBeInstanceOf(ErrPermanent);
  });
});

describe('a call that outlives its budget', () => {
  it('kills only the pooled link: its TCP connection goes, other calls on it fail once as transient, fresh connections carry on', async () => {
    const { scenario, daemon, backend } = await setup({ budgets: { rpcMs: 300, domainCreateMs: 60_000 } });
    const pooled = await backend.pooled('hv1');
    const pooledSocket = scenario.server.sockets[0]!;
    const fresh = await backend.fresh('hv1');
    const freshSocket = scenario.server.sockets[1]!;

    daemon.hold('domainCreate');
    daemon.hold('domainLookupByName');
    const bystanderOnPool = pooled.domainCreate({ dom }).catch((e: unknown) => e);
    const bystanderOnFresh = fresh.api.domainCreate({ dom });
    await daemon.received('domainCreate');
    const overlong = await pooled.domainLookupByName({ name: 'proxy-a' }).catch((e: unknown) => e);

    expect(classify(overlong, { op: 'get' })).toBeInstanceOf(ErrTransient);
    expect(overlong).toMatchObject({ code: 'LIBVIRT_CALL_TIMEOUT' });
    await closed(pooledSocket);
    const bystanderErr = await bystanderOnPool;
    expect(bystanderErr).toMatchObject({ code: 'LIBVIRT_CONNECTION_KILLED' });
    expect(errorClassOf(classify(bystanderErr, { op: 'create' }))).toBe('transient');

    daemon.release();
    await expect(bystanderOnFresh).resolves.toBeUndefined();
    expect(freshSocket.closed).toBe(false);
    expect(await fresh.api.connectGetHostname()).toBe('fake-hv');

    const redialled = await backend.pooled('hv1');
    expect(await redialled.domainLookupByName({ name: 'proxy-a' })).toMatchObject({ name: 'proxy-a' });
    await fresh.close();
    await closed(freshSocket);
  });

  it("is abandoned the same way when the caller's signal fires", async () => {
    const { scenario, daemon, backend } = await setup();
    const pooled = await backend.pooled('hv1');
    daemon.hold('domainCreate');
    const controller = new AbortController();
    const starting = pooled.domainCreate({ dom, signal: controller.signal }).catch((e: unknown) => e);
    await daemon.received('domainCreate');
    controller.abort(new Error('shutting down'));

    expect(await starting).toMatchObject({ code: 'LIBVIRT_CALL_ABORTED' });
    expect(classify(await starting, { op: 'create' })).toBeInstanceOf(ErrTransient);
    await closed(scenario.server.sockets[0]!);
  });
});

describe('dialling', () => {
  it('logs the connection with address, user and duration, inside a failed dial the stage, and picks up a key that appears later', async () => {
    const scenario = await startDialScenario(resources);
    const keyFile = join(scenario.dir, 'rotated_key');
    const { backend, lines } = await setupWithScenarioKey(scenario, keyFile);

    const err = await backend.pooled('hv1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErrTransient); // the Secret has not landed yet
    const failed = lines.find((line) => line.msg === 'libvirt host connect failed');
    expect(failed).toMatchObject({ stage: 'credentials', address: scenario.server.address, user: 'tester', host: 'hv1', provider: 'kvm2-test' });
    expect(typeof failed?.duration).toBe('number');
    expect(failed?.error).toBe('reading the ssh key file: ENOENT');
    // The path is in the log line, though no longer in the message (which reaches API answers).
    expect(failed?.file).toBe(keyFile);

    await writeFile(`${keyFile}.tmp`, scenario.clientKey.private, { mode: 0o600 });
    await rename(`${keyFile}.tmp`, keyFile);
    const api = await backend.pooled('hv1');
    expect(await api.connectGetLibVersion()).toBe(9_000_000);
    expect(lines.find((line) => line.msg === 'libvirt host connected')).toMatchObject({
      address: scenario.server.address,
      user: 'tester',
      connection: 'pooled',
    });
  });

  it('gives a fresh connection of its own each time, closed with a courtesy ConnectClose', async () => {
    const { scenario, daemon, backend } = await setup();
    const one = await backend.fresh('hv1');
    const two = await backend.fresh('hv1');
    expect(scenario.server.sockets).toHaveLength(2);

    await one.close();
    expect(daemon.count('connectClose')).toBe(1);
    await closed(scenario.server.sockets[0]!);
    expect(scenario.server.sockets[1]!.closed).toBe(false);
    expect(await two.api.connectGetHostname()).toBe('fake-hv');
    await two.close();
  });

  it('closeAll closes the pooled connections', async () => {
    const { scenario, daemon, backend } = await setup();
    await (await backend.pooled('hv1')).connectGetHostname();
    await backend.closeAll();
    expect(daemon.count('connectClose')).toBe(1);
    await closed(scenario.server.sockets[0]!);
  });
});

// A backend whose key file does not exist yet (and the daemon it will reach once it does).
async function setupWithScenarioKey(scenario: DialScenario, keyFile: string) {
  const daemon = await startFakeLibvirtd(resources, scenario.dir);
  const [entry] = validateProvidersConfig([
    {
      name: 'kvm2-test',
      type: 'kvm2',
      kvm2: {
        sshKeyFile: keyFile,
        knownHostsFile: scenario.knownHostsFile,
        machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
        hosts: [{ name: 'hv1', address: scenario.server.address, user: 'tester', bridge: 'br0', socket: daemon.path }],
      },
    },
  ]);
  const { lines, logger } = captureLogs('debug');
  const backend = createHostBackend({
    providerName: 'kvm2-test',
    settings: withDefaults(entry as Kvm2Entry),
    logger,
  });
  resources.add(() => backend.closeAll());
  return { backend, lines, daemon };
}
