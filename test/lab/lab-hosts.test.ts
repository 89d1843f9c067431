// The lab's two hosts behave like real, different libvirt hosts: reachable over SSH from the root
// namespace with the lab key and hashed known_hosts, each serving its own libvirtd (lab1 Debian 12's
// 9.0, lab2 Debian 13's 11.3) that refuses users outside the libvirt group itself, in namespaces
// of its own where nothing of the other host is visible, each with a hostname of its own.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Lab, type LabHost, labLibvirtUri, loadLab, nsExec, runCommand, sshArgs, virsh } from './harness/lab';

let lab: Lab;
beforeAll(() => {
  lab = loadLab();
});

const virshOver = (uri: string, args: string[]) => runCommand(['virsh', '-q', '-c', uri, ...args]);

// Python's libvirt binding reports the numeric error code that virsh only prints as text.
const errorCodeScript = `
import sys, libvirt
libvirt.registerErrorHandler(lambda *_: None, None)
try:
    libvirt.open(sys.argv[1])
    print("opened")
except libvirt.libvirtError as e:
    print(e.get_error_code(), e.get_error_message())
`;

describe.each([0, 1])('lab host %i', (index) => {
  const host = () => {
    const found = lab.hosts[index];
    if (!found) throw new Error(`lab.json lists no host #${index}`);
    return found;
  };

  it('lists the running default pool and the inactive pool over qemu+libssh as the libvirt user', async () => {
    const listed = await virshOver(labLibvirtUri(lab, host()), ['pool-list', '--all']);
    expect(listed.stderr).toBe('');
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    expect(rows).toContainEqual([lab.pool.name, 'active', 'yes']);
    expect(rows).toContainEqual([lab.inactivePool.name, 'inactive', 'no']);
  });

  it("reaches the host's own libvirtd, not the other host's", async () => {
    const other = lab.hosts[1 - index] as LabHost;
    const overSsh = (await virshOver(labLibvirtUri(lab, host()), ['pool-uuid', lab.pool.name])).stdout.trim();
    expect(overSsh).toBe((await virsh(['pool-uuid', lab.pool.name], host())).trim());
    expect(overSsh).not.toBe((await virsh(['pool-uuid', lab.pool.name], other)).trim());
  });

  it('runs the libvirt version lab.json names (lab1 9.0.0, lab2 11.3.0)', async () => {
    const version = await virshOver(labLibvirtUri(lab, host()), ['version', '--daemon']);
    expect(version.stdout).toContain(`Running against daemon: ${host().libvirtVersion}`);
    expect(host().libvirtVersion).toBe(['9.0.0', '11.3.0'][index]);
  });

  it("answers with a hostname of its own, over SSH and over libvirt: not the other host's, not the machine's", async () => {
    // The name resolves on the host as on a Debian install (127.0.1.1): libvirt looks it up.
    const overSsh = await runCommand(['ssh', ...sshArgs(lab, host()), 'hostname; getent hosts "$(hostname)"']);
    expect(overSsh.stdout.trim().split(/\s+/), overSsh.stderr).toEqual([host().hostname, '127.0.1.1', host().hostname]);
    expect((await virshOver(labLibvirtUri(lab, host()), ['hostname'])).stdout.trim()).toBe(host().hostname);
    expect(host().hostname).toBe(`kvm2lab-${host().name}`);
    expect(host().hostname).not.toBe(hostname());
  });

  it('lets the non-libvirt user in over SSH', async () => {
    const result = await runCommand(['ssh', ...sshArgs(lab, host(), lab.nonLibvirtUser), 'id -nG']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split(/\s+/)).not.toContain('libvirt');
  });

  it('has libvirt itself refuse the non-libvirt user with ErrAuthFailed (45)', async () => {
    const uri = labLibvirtUri(lab, host(), lab.nonLibvirtUser);
    const listed = await virshOver(uri, ['pool-list', '--all']);
    expect(listed.exitCode).not.toBe(0);
    expect(listed.stderr).toContain('authentication failed: access denied by policy');
    const viaPython = await runCommand(['/usr/bin/python3', '-c', errorCodeScript, uri]);
    expect(viaPython.stdout.trim()).toBe('45 authentication failed: access denied by policy');
  });

  it('is verified against known_hosts: a different key for the host makes the same dial fail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kvm2lab-'));
    try {
      await runCommand(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'other')]);
      const { host: address, port } = host();
      const name = port === 22 ? address : `[${address}]:${port}`;
      const otherKey = readFileSync(join(dir, 'other.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
      writeFileSync(join(dir, 'known_hosts'), `${name} ${otherKey}\n`);
      const uri = labLibvirtUri({ ...lab, knownHostsFile: join(dir, 'known_hosts') }, host());
      const listed = await virshOver(uri, ['pool-list']);
      expect(listed.exitCode).not.toBe(0);
      expect(listed.stderr).toMatch(/host key/i);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('is known to OpenSSH under the exact host:port dialled, with strict checking', async () => {
    const result = await runCommand(['ssh', ...sshArgs(lab, host()), 'true']);
    expect(result.stderr).not.toMatch(/warning/i);
    expect(result.exitCode).toBe(0);
  });
});

describe('known_hosts', () => {
  const lines = () => readFileSync(lab.knownHostsFile, 'utf8').trim().split('\n');

  it('holds one hashed entry per host and no host name in clear', () => {
    expect(lines()).toHaveLength(lab.hosts.length);
    for (const line of lines()) expect(line).toMatch(/^\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+ ssh-ed25519 /);
    expect(readFileSync(lab.knownHostsFile, 'utf8')).not.toContain('198.18.');
  });

  it('names the port-22 host bare and the other as [host]:port', async () => {
    const find = (name: string) => runCommand(['ssh-keygen', '-F', name, '-f', lab.knownHostsFile]);
    const [lab1, lab2] = lab.hosts;
    expect(lab1?.port).toBe(22);
    expect((await find(lab1?.host ?? '')).exitCode).toBe(0);
    expect((await find(`[${lab2?.host}]:${lab2?.port}`)).exitCode).toBe(0);
    expect((await find(lab2?.host ?? '')).exitCode).not.toBe(0);
  });
});

describe.each([0, 1])('namespaces of lab host %i', (index) => {
  const host = () => lab.hosts[index] as LabHost;
  const other = () => lab.hosts[1 - index] as LabHost;
  const commandsIn = async (netns: string) => {
    const pids = (await runCommand(['ip', 'netns', 'pids', netns])).stdout.split(/\s+/).filter(Boolean);
    return new Set(pids.map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim()));
  };

  it('runs every daemon of the host inside its network namespace, where its VM bridge has its address', async () => {
    const commands = await commandsIn(host().netns);
    for (const daemon of ['libvirtd', 'virtlogd', 'dbus-daemon', 'polkitd', 'dnsmasq', 'sshd']) expect(commands).toContain(daemon);
    const bridge = await nsExec(host().netns, ['ip', '-br', 'addr', 'show', 'dev', lab.bridge]);
    expect(bridge).toContain(host().bridgeAddress);
  });

  it('serves DHCP on its VM bridge from inside its namespace', async () => {
    const listening = await nsExec(host().netns, ['ss', '-ulnp']);
    expect(listening).toMatch(new RegExp(`0\\.0\\.0\\.0%${lab.bridge}:67 .*"dnsmasq"`));
  });

  it("has its own /run: the other host's and the machine's libvirt sockets are not its own", () => {
    // Device and inode: two tmpfs mounts may hand out the same inode numbers.
    const socketId = (path: string) => {
      const stat = statSync(path);
      return `${stat.dev}:${stat.ino}`;
    };
    const socketInode = (root: string) => socketId(`${root}/run/libvirt/libvirt-sock`);
    expect(socketInode(host().rootPath)).not.toBe(socketInode(other().rootPath));
    let rootSocket: string | undefined;
    try {
      rootSocket = socketId('/run/libvirt/libvirt-sock');
    } catch {
      rootSocket = undefined; // no libvirtd of the machine's own: fine
    }
    expect(rootSocket).not.toBe(socketInode(host().rootPath));
  });

  it('keeps its VM network out of the root namespace', async () => {
    const rootAddresses = (await runCommand(['ip', '-br', 'addr'])).stdout;
    expect(rootAddresses).not.toContain(host().bridgeAddress.split('/')[0]);
    expect((await runCommand(['ip', 'link', 'show', lab.bridge])).exitCode).not.toBe(0);
  });

  it('leaves its libvirt socket open to all, so refusals come from libvirt, not the socket', () => {
    // /var/run is a symlink to /run, which would resolve in the root namespace: the /run path.
    expect(statSync(`${host().rootPath}/run/libvirt/libvirt-sock`).mode & 0o777).toBe(0o777);
  });
});

describe('lab2', () => {
  it("is a Debian 13 root of its own, not this machine's", () => {
    const lab2 = lab.hosts[1] as LabHost;
    expect(readFileSync(`${lab2.rootPath}/etc/debian_version`, 'utf8')).toMatch(/^13\./);
    expect(readFileSync('/etc/debian_version', 'utf8')).toMatch(/^12\./);
  });
});
