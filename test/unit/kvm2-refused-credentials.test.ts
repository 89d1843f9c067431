// A host that refuses the server's credentials is not dialled again blindly (issue 27, item 4):
// the stats sampler, the event subscription and GC all dial through the host backend, and each
// login they make is one failed authentication in the host's sshd log, which fail2ban bans after
// five. Over a real in-process SSH server (each TCP connection it accepts is one login attempt)
// and a scripted libvirtd behind it.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateProvidersConfig, type Kvm2Entry } from '@/server/providers/config';
import { errorClassOf } from '@/server/providers/errors';
import { defaultBudgets } from '@/server/providers/kvm2/backend';
import { probeHost, reasonFor } from '@/server/providers/kvm2/check';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import { withDefaults, type Kvm2Settings } from '@/server/providers/kvm2/kvm2';
import type { HostBackend } from '@/server/providers/kvm2/libvirt-api';
import { RefusedDials } from '@/server/providers/kvm2/refused-dials';
import { silentLogger } from '@/test/fakes/control-plane';
import { startFakeLibvirtd } from './kvm2-fake-libvirtd';
import { generateKey, Resources, startTestSshServer, writeFiles, type TestKey, type TestSshServer } from './ssh-harness';

const resources = new Resources();
afterEach(() => resources.cleanup());

interface Setup {
  server: TestSshServer;
  backend: HostBackend;
  settings: Kvm2Settings;
  /** keys the host accepts now */
  authorized: TestKey[];
  clientKey: TestKey;
  dir: string;
  clock: { now: number };
  refusedDials: RefusedDials;
  /** TCP connections the sshd accepted: one login attempt each */
  logins: () => number;
}

async function setup(): Promise<Setup> {
  const dir = await resources.tempDir();
  const clientKey = generateKey();
  const hostKey = generateKey();
  const authorized: TestKey[] = []; // the host does not know our key yet
  const server = await startTestSshServer(resources, { hostKey, authorizedKeys: () => authorized });
  const daemon = await startFakeLibvirtd(resources, dir);
  await writeFiles(dir, { id_ed25519: clientKey.private, known_hosts: `[127.0.0.1]:${server.port} ${hostKey.publicFields}\n` });
  const [entry] = validateProvidersConfig([
    {
      name: 'kvm2-test',
      type: 'kvm2',
      kvm2: {
        sshKeyFile: join(dir, 'id_ed25519'),
        knownHostsFile: join(dir, 'known_hosts'),
        machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
        hosts: [{ name: 'hv1', address: server.address, user: 'tester', bridge: 'br0', socket: daemon.path }],
      },
    },
  ]);
  const settings = withDefaults(entry as Kvm2Entry);
  const clock = { now: Date.UTC(2026, 0, 1) };
  const refusedDials = new RefusedDials({ now: () => clock.now });
  const backend = createHostBackend({
    providerName: 'kvm2-test',
    settings,
    logger: silentLogger(),
    budgets: { ...defaultBudgets, dialMs: 5_000 },
    refusedDials,
  });
  resources.add(() => backend.closeAll());
  return { server, backend, settings, authorized, clientKey, dir, clock, refusedDials, logins: () => server.sockets.length };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );
const healthCheck = (s: Setup) => probeHost({ backend: s.backend, host: s.settings.hosts[0]!, logger: silentLogger() });

describe('a host that refuses the credentials', () => {
  it('is logged into once; the background callers then fail at once, permanently, with the real reason', async () => {
    const s = await setup();
    const first = await failure(s.backend.pooled('hv1'));
    expect(errorClassOf(first)).toBe('permanent');
    expect(reasonFor(first, 'dial')).toBe('Unauthorized');
    expect(s.logins()).toBe(1);

    // The sampler every 10 s, the event subscription's retries, GC, an image upload: a minute's worth.
    for (let tick = 0; tick < 9; tick += 1) {
      s.clock.now += 10_000;
      const again = await failure(tick % 3 === 0 ? s.backend.fresh('hv1') : s.backend.pooled('hv1'));
      expect(errorClassOf(again)).toBe('permanent');
      expect(reasonFor(again, 'dial')).toBe('Unauthorized');
      expect((again as Error).message).toContain('is not dialled again');
    }
    expect(s.logins()).toBe(1);
  });

  it('is dialled by the health check a minute after the refusal, then after 2, 4, 8 and at most 15 minutes; it keeps reporting Unauthorized and recovers when it gets through', async () => {
    const s = await setup();
    expect((await healthCheck(s)).reason).toBe('Unauthorized');
    expect(s.logins()).toBe(1);

    s.clock.now += 30_000;
    const skipped = await healthCheck(s);
    expect(skipped).toMatchObject({ ready: false, reason: 'Unauthorized', details: { user: 'tester', pool: 'default' } });
    expect(s.logins()).toBe(1);

    // Each try that is refused again doubles the wait: fail2ban's stock jail bans after 5 in 10 min.
    const minute = 60_000;
    s.clock.now += 30_000;
    let logins = 1;
    for (const waitMs of [2 * minute, 4 * minute, 8 * minute, 15 * minute, 15 * minute]) {
      expect((await healthCheck(s)).reason).toBe('Unauthorized');
      logins += 1;
      expect(s.logins()).toBe(logins);
      s.clock.now += waitMs - 1_000;
      expect((await healthCheck(s)).reason).toBe('Unauthorized');
      expect(s.logins()).toBe(logins);
      s.clock.now += 1_000;
    }

    // The admin adds our key to authorized_keys on the host: the next check gets through.
    s.authorized.push(s.clientKey);
    expect((await healthCheck(s)).reason).toBe('Reachable');
    expect(s.logins()).toBe(logins + 1);

    const api = await s.backend.pooled('hv1');
    expect(await api.connectGetHostname()).toBe('fake-hv');
    expect(s.logins()).toBe(logins + 2);
  });

  it.each([
    ['the key file', 'id_ed25519'],
    ['the known_hosts file', 'known_hosts'],
  ])('is dialled again at once when %s changes', async (_what, file) => {
    const s = await setup();
    await failure(s.backend.pooled('hv1'));
    await failure(s.backend.pooled('hv1'));
    expect(s.logins()).toBe(1);

    s.authorized.push(s.clientKey);
    // Replaced the way a rotated Secret is: a new file renamed over the old one.
    const path = join(s.dir, file);
    await writeFile(`${path}.new`, await readFile(path));
    await rename(`${path}.new`, path);

    const api = await s.backend.pooled('hv1');
    expect(await api.connectGetHostname()).toBe('fake-hv');
    expect(s.logins()).toBe(2);
  });

  it("is still remembered by the entry's next backend after a config reload", async () => {
    const s = await setup();
    await failure(s.backend.pooled('hv1'));
    const reloaded = createHostBackend({ providerName: 'kvm2-test', settings: s.settings, logger: silentLogger(), refusedDials: s.refusedDials });
    resources.add(() => reloaded.closeAll());
    expect(reasonFor(await failure(reloaded.pooled('hv1')), 'dial')).toBe('Unauthorized');
    expect(s.logins()).toBe(1);
  });

  it('is not remembered when the failure may go away on its own (a missing key file)', async () => {
    const s = await setup();
    s.authorized.push(s.clientKey);
    const path = join(s.dir, 'id_ed25519');
    await rename(path, `${path}.away`);
    const missing = await failure(s.backend.pooled('hv1'));
    expect(errorClassOf(missing)).toBe('transient');
    await rename(`${path}.away`, path);
    // Nothing was latched, so the next dial goes through.
    expect(await (await s.backend.pooled('hv1')).connectGetHostname()).toBe('fake-hv');
  });
});
