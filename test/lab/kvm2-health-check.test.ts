// The kvm2 health check against the lab's real sshd and libvirtd: every reason a real host can
// produce, the facts it gathers, a key rotated between two checks, and the admin CLI.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Target } from '@/server/providers/contract';
import { loadProvidersConfig } from '@/server/providers/config';
import { checkHosts, probeHost } from '@/server/providers/kvm2/check';
import { createHostBackend } from '@/server/providers/kvm2/hosts';
import { withDefaults, type Kvm2Host, type Kvm2Settings } from '@/server/providers/kvm2/kvm2';
import { parseSshAddress } from '@/server/ssh';
import { createLogger } from '@/server/telemetry/logger';
import { hostDaemonPid, type Lab, loadLab, runCommand, virsh } from './harness/lab';

let lab: Lab;
let labSettings: Kvm2Settings;
let scratch: string;
const logger = createLogger({ level: 'silent' });

beforeAll(async () => {
  lab = loadLab();
  const [entry] = await loadProvidersConfig(lab.providersConfig);
  labSettings = withDefaults(entry!);
  scratch = mkdtempSync(join(tmpdir(), 'kvm2-check-lab-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const firstHost = (): Kvm2Host => labSettings.hosts[0]!;

function withHost(overrides: Partial<Kvm2Host>, settings: Partial<Kvm2Settings> = {}): Kvm2Settings {
  const host = { ...firstHost(), ...overrides };
  if (overrides.address) host.endpoint = parseSshAddress(overrides.address);
  return { ...labSettings, ...settings, hosts: [host] };
}

async function checkOnce(settings: Kvm2Settings, options: { signal?: AbortSignal } = {}): Promise<Target> {
  const backend = createHostBackend({ providerName: settings.name, settings, logger });
  try {
    const [target] = await checkHosts({ backend, settings, logger, signal: options.signal });
    return target!;
  } finally {
    await backend.closeAll();
  }
}

/** A fresh ed25519 key no lab host authorises, in OpenSSH format. */
function strangerKey(name: string): string {
  const path = join(scratch, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'stranger', '-f', path]);
  return path;
}

/** The libvirt version of the first lab host (lab1's daemon: 9.0.0). */
const firstHostVersion = () => lab.hosts[0]!.libvirtVersion;

describe('a healthy lab', () => {
  it('is Reachable on both hosts, in config order, with every detail filled from the host (its own hostname)', async () => {
    const backend = createHostBackend({ providerName: labSettings.name, settings: labSettings, logger });
    const targets = await checkHosts({ backend, settings: labSettings, logger }).finally(() => backend.closeAll());
    // Each host has a UTS namespace and hostname of its own, as real hosts never share one.
    const hostnames = await Promise.all(lab.hosts.map(async (host) => (await virsh(['hostname'], host)).trim()));
    expect(new Set(hostnames).size, `each host its own hostname: ${hostnames.join(', ')}`).toBe(lab.hosts.length);
    expect(hostnames).toEqual(lab.hosts.map((host) => host.hostname));
    const poolInfo = await virsh(['pool-info', lab.pool.name]);
    // What each host's libvirt offers, asked by root's virsh (this machine may have no /dev/kvm at all).
    const kvmOffered = await Promise.all(
      lab.hosts.map(async (host) => (/<domain>kvm<\/domain>/.test(await virsh(['domcapabilities'], host)) ? 'offered' : 'not offered')),
    );

    expect(targets.map((target) => target.name)).toEqual(lab.hosts.map((host) => host.name));
    for (const [index, target] of targets.entries()) {
      expect(target).toMatchObject({ ready: true, reason: 'Reachable', message: '' });
      // Each host answers with its own libvirt: 9.0.0 (Debian 12) and 11.3.0 (Debian 13).
      expect(target.details).toMatchObject({
        user: lab.user,
        pool: lab.pool.name,
        libvirtVersion: lab.hosts[index]!.libvirtVersion,
        hostname: hostnames[index],
        poolState: 'running',
        // The lab configures virtType qemu; whether libvirt offers KVM is the machine's to say.
        virtType: 'qemu',
        kvm: kvmOffered[index],
      });
      expect(poolInfo).toMatch(/State:\s+running/);
      const capacity = Number(target.details.poolCapacityGiB);
      const available = Number(target.details.poolAvailableGiB);
      expect(capacity).toBeGreaterThan(0);
      expect(available).toBeGreaterThan(0);
      expect(available).toBeLessThanOrEqual(capacity);
      // The same facts typed, in bytes: what the text rounds to two decimals of GiB.
      expect(target.pool).toMatchObject({ name: lab.pool.name, state: 'running' });
      expect(((target.pool?.capacityBytes ?? 0) / 1024 ** 3).toFixed(2)).toBe(target.details.poolCapacityGiB);
      expect(((target.pool?.availableBytes ?? 0) / 1024 ** 3).toFixed(2)).toBe(target.details.poolAvailableGiB);
    }
  });
});

describe('each way a real host fails the check', () => {
  it('CredentialsUnavailable when the key file does not exist', async () => {
    const target = await checkOnce(withHost({}, { sshKeyFile: join(scratch, 'no-such-key') }));
    expect(target).toMatchObject({ ready: false, reason: 'CredentialsUnavailable' });
    // The message reaches the API: it names the file by its role; the path stays in the log.
    expect(target.message).toMatch(/ssh key file: ENOENT/);
    expect(target.message).not.toContain(scratch);
    expect(target.details).toEqual({ user: lab.user, pool: lab.pool.name });
  });

  it('Unauthorized when the server rejects the key', async () => {
    const target = await checkOnce(withHost({}, { sshKeyFile: strangerKey('wrong-key') }));
    expect(target).toMatchObject({ ready: false, reason: 'Unauthorized' });
  });

  it('Unauthorized when known_hosts does not hold the host', async () => {
    const other = readFileSync(`${strangerKey('other-host-key')}.pub`, 'utf8')
      .split(' ')
      .slice(0, 2)
      .join(' ');
    const knownHostsFile = join(scratch, 'known_hosts_without_lab');
    writeFileSync(knownHostsFile, `some-other-host.example ${other}\n`);
    const target = await checkOnce(withHost({}, { knownHostsFile }));
    expect(target).toMatchObject({ ready: false, reason: 'Unauthorized' });
  });

  it('Forbidden when libvirt refuses the user (polkit denies a user outside the libvirt group)', async () => {
    const target = await checkOnce(withHost({ user: lab.nonLibvirtUser }));
    expect(target).toMatchObject({ ready: false, reason: 'Forbidden' });
    expect(target.details.user).toBe(lab.nonLibvirtUser);
  });

  it('Unreachable when nothing listens at the address', async () => {
    const address = `${lab.hosts[0]!.host}:2299`;
    const target = await checkOnce(withHost({ address }));
    expect(target).toMatchObject({ ready: false, reason: 'Unreachable' });
    expect(target.message).toContain('2299');
  });

  it('Unreachable when the libvirt socket path does not exist on the host', async () => {
    const target = await checkOnce(withHost({ socket: '/var/run/libvirt/no-such-sock' }));
    expect(target).toMatchObject({ ready: false, reason: 'Unreachable' });
    expect(target.message).toContain('/var/run/libvirt/no-such-sock');
  });

  it('Timeout when libvirtd hangs past the round timeout', async () => {
    const pid = hostDaemonPid(lab.hosts[0]!, 'libvirtd');
    let target: Target;
    process.kill(Number(pid), 'SIGSTOP');
    try {
      target = await checkOnce(labSettings, { signal: AbortSignal.timeout(2_000) });
    } finally {
      process.kill(Number(pid), 'SIGCONT');
    }
    expect(target).toMatchObject({ ready: false, reason: 'Timeout' });
    expect(target.message).toContain("round's time");
    // libvirtd is back: the next round is healthy again.
    expect(await checkOnce(labSettings)).toMatchObject({ reason: 'Reachable' });
  });

  it('PoolNotFound when no pool has the configured name, after what the host already said', async () => {
    const target = await checkOnce(withHost({ pool: 'kvm2-no-such-pool' }));
    expect(target).toMatchObject({ ready: false, reason: 'PoolNotFound' });
    expect(target.details).toMatchObject({ pool: 'kvm2-no-such-pool', libvirtVersion: firstHostVersion() });
    expect(target.details).not.toHaveProperty('poolState');
    expect(target.pool).toEqual({ name: 'kvm2-no-such-pool' });
  });

  it('PoolNotActive when the pool is defined but not running', async () => {
    const target = await checkOnce(withHost({ pool: lab.inactivePool.name }));
    expect(target).toMatchObject({ ready: false, reason: 'PoolNotActive' });
    expect(target.details).toMatchObject({ pool: lab.inactivePool.name, poolState: 'inactive' });
    expect(target.pool).toMatchObject({ name: lab.inactivePool.name, state: 'inactive' });
    expect(await virsh(['pool-info', lab.inactivePool.name])).toMatch(/State:\s+inactive/);
  });
});

describe('a rotated key', () => {
  it('is picked up by the next check without a restart', async () => {
    const keyFile = join(scratch, 'rotating_key');
    copyFileSync(lab.sshKeyFile, keyFile);
    const settings = withHost({}, { sshKeyFile: keyFile });
    const backend = createHostBackend({ providerName: settings.name, settings, logger });
    const host = settings.hosts[0]!;
    const check = () => probeHost({ backend, host, logger });
    const replaceKey = (source: string) => {
      copyFileSync(source, `${keyFile}.new`);
      renameSync(`${keyFile}.new`, keyFile);
    };
    try {
      expect((await check()).reason).toBe('Reachable');
      replaceKey(strangerKey('rotated-wrong-key'));
      expect((await check()).reason).toBe('Unauthorized');
      replaceKey(lab.sshKeyFile);
      expect((await check()).reason).toBe('Reachable');
    } finally {
      await backend.closeAll();
    }
  });
});

describe('the admin CLI', () => {
  const cli = (args: string[]) => runCommand(['npx', 'tsx', 'scripts/hosts.ts', ...args], { timeoutMs: 60_000 });

  it('checks the lab config, prints each host as Reachable with its details, and exits 0', async () => {
    const result = await cli(['check', '--config', lab.providersConfig]);
    expect(result.exitCode).toBe(0);
    for (const host of lab.hosts) {
      expect(result.stdout).toMatch(new RegExp(`^lab\\s+${host.name}\\s+Reachable\\s+\\d+ ms$`, 'm'));
      expect(result.stdout).toContain(`lab/${host.name}: Reachable`);
    }
    for (const host of lab.hosts) expect(result.stdout).toContain(`libvirtVersion: ${host.libvirtVersion}`);
  });

  it('prints JSON with --json', async () => {
    const result = await cli(['check', '--config', lab.providersConfig, '--json']);
    expect(result.exitCode).toBe(0);
    const [provider] = JSON.parse(result.stdout) as Array<{ provider: string; targets: Target[] }>;
    expect(provider?.provider).toBe('lab');
    expect(provider?.targets.map((target) => [target.name, target.reason])).toEqual(lab.hosts.map((host) => [host.name, 'Reachable']));
  });

  it('exits 1 and explains the failure when a host is not Reachable', async () => {
    const config = readFileSync(lab.providersConfig, 'utf8').replace(/pool: default/, `pool: ${lab.inactivePool.name}`);
    const path = join(scratch, 'providers-inactive-pool.yaml');
    writeFileSync(path, config);
    const result = await cli(['check', '--config', path]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/^lab\s+lab1\s+PoolNotActive/m);
    expect(result.stdout).toMatch(/^lab\s+lab2\s+Reachable/m);
    expect(result.stdout).toContain(`virsh pool-start ${lab.inactivePool.name}`);
  });

  it('exits 2 with a message naming the block for a bad config', async () => {
    const config = readFileSync(lab.providersConfig, 'utf8').replace(/^\s+bridge: .*$/m, '');
    const path = join(scratch, 'providers-no-bridge.yaml');
    writeFileSync(path, config);
    const result = await cli(['check', '--config', path]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('kvm2.hosts[0]: bridge is required');
    expect(result.stdout).toBe('');
  });
});
