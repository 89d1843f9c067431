// The Add host wizard's steps against the lab's real sshds and libvirtds (9.0 on lab1, 11.3 on
// lab2), from a config with lab1 only and a known_hosts file without lab2: the host key with the
// fingerprint ssh-keygen prints for the host's key file, trusting it, the login, libvirt, the
// pools and bridges each version can list, KVM (where the host has a usable /dev/kvm) and UEFI,
// the health check; a user outside the libvirt group gets the Forbidden fix; a known_hosts entry
// holding another key is the mismatch warning and is never replaced.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostSetup } from '@/server/onboarding/host-setup';
import { builtInOnboarding } from '@/server/onboarding/onboarding-types';
import { loadProvidersConfig, type Kvm2Entry } from '@/server/providers/config';
import { createLogger } from '@/server/telemetry/logger';
import { labHostKvm } from '@/test/support/kvm-device';
import { generateKey } from '@/test/unit/ssh-harness';
import { type Lab, type LabHost, loadLab } from './harness/lab';

let lab: Lab;
let scratch: string;
let setup: HostSetup;
let knownHosts: string;
const logger = createLogger({ level: 'silent' });
const provider = 'lab';

const hostOf = (name: string): LabHost => lab.hosts.find((host) => host.name === name)!;
const fingerprintOnHost = (host: LabHost) =>
  execFileSync('ssh-keygen', ['-lf', join(lab.dir, 'ssh', host.name, 'ssh_host_ed25519_key.pub')], { encoding: 'utf8' }).split(' ')[1];
const candidate = (host: LabHost, extra: Record<string, string> = {}) => ({ provider, address: host.address, user: lab.user, name: host.name, ...extra });

beforeAll(async () => {
  lab = loadLab();
  scratch = mkdtempSync(join(tmpdir(), 'kvm2-host-setup-'));
  // lab1 only, and only lab1's key in known_hosts (the lab's file holds both, hashed: lab1's is the first line).
  knownHosts = join(scratch, 'known_hosts');
  writeFileSync(knownHosts, `${readFileSync(lab.knownHostsFile, 'utf8').split('\n')[0]}\n`, { mode: 0o600 });
  const [entry] = (await loadProvidersConfig(lab.providersConfig)) as Kvm2Entry[];
  const lab1Only: Kvm2Entry = {
    ...entry!,
    kvm2: { ...entry!.kvm2, knownHostsFile: knownHosts, hosts: entry!.kvm2.hosts.filter((host) => host.name === 'lab1') },
  };
  setup = new HostSetup({ types: builtInOnboarding(), configPath: join(scratch, 'providers.yaml'), entries: () => [lab1Only], logger });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('adding lab2 step by step', () => {
  it('shows the host key with the fingerprint ssh-keygen -lf prints on the host, and trusts it only when confirmed', async () => {
    const lab2 = hostOf('lab2');
    const step = await setup.hostKey({ provider, address: lab2.address });
    expect(step).toEqual({
      ok: true,
      hostKey: {
        keyType: 'ssh-ed25519',
        fingerprint: fingerprintOnHost(lab2),
        hostCommand: 'ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub',
        standing: 'unknown',
      },
    });
    // Before trusting, the login fails on the host key, and says so.
    const early = await setup.authenticate(candidate(lab2));
    expect(early).toMatchObject({ ok: false, failure: { reason: 'Unauthorized', fix: expect.stringContaining('step 1') } });
    await expect(setup.trustHostKey({ provider, address: lab2.address, fingerprint: fingerprintOnHost(hostOf('lab1'))! })).rejects.toMatchObject({
      code: 'ERR_HOST_SETUP_CONFLICT',
    });
    await expect(setup.trustHostKey({ provider, address: lab2.address, fingerprint: step.hostKey!.fingerprint })).resolves.toEqual({ ok: true, written: true });
    expect(readFileSync(knownHosts, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
    await expect(setup.hostKey({ provider, address: lab2.address })).resolves.toMatchObject({ ok: true, hostKey: { standing: 'known' } });
  });

  it('logs in and opens libvirt 11.3', async () => {
    const lab2 = hostOf('lab2');
    await expect(setup.authenticate(candidate(lab2))).resolves.toEqual({ ok: true });
    await expect(setup.libvirt(candidate(lab2))).resolves.toMatchObject({ ok: true, libvirtVersion: '11.3.0' });
  });

  it("lists the pools and the bridge on both libvirt versions: lab1's interface driver, lab2's bridge network", async () => {
    for (const host of lab.hosts) {
      const resources = await setup.resources(candidate(host));
      expect(resources.ok, JSON.stringify(resources)).toBe(true);
      expect(resources.pools!.map((pool) => [pool.name, pool.state]).sort()).toEqual([
        [lab.pool.name, 'running'],
        [lab.inactivePool.name, 'inactive'],
      ]);
      expect(resources.pools!.find((pool) => pool.name === lab.pool.name)!.availableGiB).toBeGreaterThan(0);
      expect(resources.defaults).toEqual({ pool: lab.pool.name, bridge: lab.bridge });
      if (host.name === 'lab1') {
        expect(resources.bridges).toEqual([{ name: lab.bridge, source: 'interface' }]);
        expect(resources.notes).toEqual([]);
      } else {
        expect(resources.bridges).toEqual([{ name: lab.bridge, source: 'network', network: lab.bridge }]);
        expect(resources.notes).toEqual([expect.stringContaining('no interface driver')]);
      }
    }
  });

  it('reads KVM and UEFI: kvm where the host has a usable /dev/kvm (lab1 when this machine has one; lab2 never), else software emulation; both have OVMF', async () => {
    // lab2's /dev is its own, without /dev/kvm: a host without KVM on every machine.
    expect(labHostKvm(hostOf('lab2'))).toMatchObject({ usable: false });
    for (const host of lab.hosts) {
      const kvm = labHostKvm(host);
      const step = await setup.capabilities(candidate(host));
      expect(step, `${host.name}: ${kvm.usable ? 'usable /dev/kvm' : kvm.reason}`).toMatchObject({
        ok: true,
        virtType: kvm.usable ? 'kvm' : 'qemu',
        uefi: true,
        summary: expect.stringContaining(kvm.usable ? 'KVM (hardware virtualisation)' : 'software emulation'),
      });
    }
  });

  it('runs the health check on the candidate: Reachable', async () => {
    const check = await setup.check(candidate(hostOf('lab2'), { pool: lab.pool.name, bridge: lab.bridge }));
    expect(check).toMatchObject({ ok: true, target: { name: 'lab2', ready: true, reason: 'Reachable', details: { libvirtVersion: '11.3.0' } } });
  });
});

describe('what a step that fails shows', () => {
  it('gives a user outside the libvirt group the Forbidden fix', async () => {
    for (const host of lab.hosts) {
      const step = await setup.libvirt({ ...candidate(host), user: lab.nonLibvirtUser });
      expect(step).toMatchObject({ ok: false, failure: { reason: 'Forbidden', fix: expect.stringContaining(`usermod -aG libvirt ${lab.nonLibvirtUser}`) } });
    }
  });

  it('gives a refused key the authorise command and a stopped socket the libvirtd fix', async () => {
    const lab2 = hostOf('lab2');
    const refused = await setup.authenticate({ ...candidate(lab2), user: 'nobody-here' });
    expect(refused).toMatchObject({
      ok: false,
      failure: { reason: 'Unauthorized', fix: expect.stringContaining("sudo -u nobody-here sh -c 'umask 077; mkdir -p ~/.ssh") },
    });
    const noSocket = await setup.libvirt({ ...candidate(lab2), socket: '/run/libvirt/not-here' });
    expect(noSocket).toMatchObject({ ok: false, failure: { reason: 'Unreachable', fix: expect.stringContaining('libvirtd is not running') } });
  });

  it('warns about a host whose key differs from the one known, and never replaces it', async () => {
    // The swapped key: known_hosts holds another ed25519 key under lab1's address, as it would
    // after the host was reinstalled or when something in between poses as it.
    const lab1 = hostOf('lab1');
    const swapped = join(scratch, 'known_hosts.swapped');
    writeFileSync(swapped, `${lab1.host} ${generateKey().publicFields}\n`);
    copyFileSync(swapped, `${swapped}.before`);
    const [entry] = (await loadProvidersConfig(lab.providersConfig)) as Kvm2Entry[];
    const swappedSetup = new HostSetup({
      types: builtInOnboarding(),
      configPath: undefined,
      entries: () => [{ ...entry!, kvm2: { ...entry!.kvm2, knownHostsFile: swapped } }],
      logger,
    });
    const step = await swappedSetup.hostKey({ provider, address: lab1.address });
    expect(step).toMatchObject({
      ok: false,
      hostKey: { standing: 'changed', fingerprint: fingerprintOnHost(lab1) },
      failure: { fix: expect.stringContaining('never replaced') },
    });
    expect(step.hostKey!.knownFingerprint).not.toBe(step.hostKey!.fingerprint);
    await expect(swappedSetup.trustHostKey({ provider, address: lab1.address, fingerprint: step.hostKey!.fingerprint })).rejects.toMatchObject({
      code: 'ERR_HOST_SETUP_CONFLICT',
    });
    expect(readFileSync(swapped, 'utf8')).toBe(readFileSync(`${swapped}.before`, 'utf8'));
  });
});
