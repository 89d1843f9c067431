// `lab:down` leaves nothing of the lab behind, and a second `lab:up` brings it back. Runs last
// (the `teardown` project), because it takes the lab away from every other test; it leaves the
// lab up again.
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Lab, type LabHost, labLibvirtUri, loadLab, runCommand, virsh } from './harness/lab';

const labScript = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
const domainName = 'kvm2lab-teardown-probe';

function domainXml(diskPath: string): string {
  return `<domain type="qemu">
  <name>${domainName}</name>
  <memory unit="MiB">128</memory>
  <vcpu>1</vcpu>
  <os firmware="efi"><type arch="x86_64" machine="q35">hvm</type>
    <firmware><feature enabled="no" name="secure-boot"/></firmware></os>
  <features><acpi/><apic/></features>
  <cpu mode="maximum"/>
  <devices>
    <disk type="file" device="disk"><driver name="qemu" type="qcow2"/>
      <source file="${diskPath}"/><target dev="vda" bus="virtio"/></disk>
    <interface type="bridge"><source bridge="kvm2lab-br0"/><model type="virtio"/></interface>
  </devices>
</domain>`;
}

/** A running domain with an NVRAM file and a volume on HOST: what down.sh must clean up. */
async function startProbeDomain(lab: Lab, host: LabHost): Promise<void> {
  await virsh(['vol-create-as', lab.pool.name, `${domainName}.qcow2`, '64M', '--format', 'qcow2'], host);
  const diskPath = (await virsh(['vol-path', '--pool', lab.pool.name, `${domainName}.qcow2`], host)).trim();
  const dir = mkdtempSync(join(tmpdir(), 'kvm2lab-'));
  try {
    writeFileSync(join(dir, 'domain.xml'), domainXml(diskPath));
    await virsh(['define', join(dir, 'domain.xml')], host);
  } finally {
    rmSync(dir, { recursive: true });
  }
  await virsh(['start', domainName], host);
}

/** True while the process exists and is not a zombie. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Ourselves and our ancestors: their command lines may name .lab (the JSON report path). */
function ownLineage(): Set<number> {
  const lineage = new Set<number>();
  for (let pid = process.pid; pid > 1;) {
    lineage.add(pid);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    pid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 1);
  }
  return lineage;
}

function processesNaming(text: string): string[] {
  const exempt = ownLineage();
  const found: string[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (exempt.has(Number(entry)) || !running(Number(entry))) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue; // exited meanwhile
    }
    if (cmdline.includes(text)) found.push(`${entry}: ${cmdline}`);
  }
  return found;
}

/** The machine's /dev/ptmx: a character device, which a lab host joined by setns must never replace. */
const ptmxIsDevice = () => statSync('/dev/ptmx').isCharacterDevice() && !lstatSync('/dev/ptmx').isSymbolicLink();

/** Resolves once CHILD runs (its pid exists). */
async function waitUntilRunning(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
}

const pidIn = (file: string) => Number(readFileSync(file, 'utf8').trim());
const namespacesListed = async () => (await runCommand(['ip', 'netns', 'list'])).stdout;

describe('lab:down, then lab:up again', () => {
  let lab: Lab;

  it('removes every domain, volume, pool, process, namespace, user and file of both hosts', async () => {
    lab = loadLab();
    for (const host of lab.hosts) await startProbeDomain(lab, host);
    expect(processesNaming(`guest=${domainName}`)).toHaveLength(2);
    const inits = lab.hosts.map((host) => pidIn(host.initPidFile));
    const imageServer = pidIn(join(lab.dir, 'run', 'image-server.pid'));
    for (const pid of [...inits, imageServer]) expect(running(pid)).toBe(true);
    const lab1Definition = `${lab.dir}/hosts/lab1/fs/etc/libvirt/qemu/${domainName}.xml`;
    expect(existsSync(lab1Definition)).toBe(true); // lab1's definitions are its own, not the machine's
    expect(existsSync(`/etc/libvirt/qemu/${domainName}.xml`)).toBe(false);

    const down = await runCommand(['bash', labScript('down.sh')], { timeoutMs: 240_000 });
    expect(down.stderr).toContain('lab is down');
    expect(down.exitCode).toBe(0);

    for (const pid of [...inits, imageServer]) expect(running(pid)).toBe(false);
    expect(processesNaming(`${lab.dir}/`)).toEqual([]);
    expect(processesNaming(`guest=${domainName}`)).toEqual([]);
    expect(existsSync(lab1Definition)).toBe(false);
    expect(existsSync(lab.pool.path)).toBe(false);
    expect(existsSync(lab.inactivePool.path)).toBe(false);
    expect(existsSync('/var/lib/kvm2lab')).toBe(false);
    expect(readFileSync('/proc/self/mounts', 'utf8')).not.toContain(lab.dir);

    const namespaces = await namespacesListed();
    expect(namespaces).not.toContain('kvm2lab-'); // lab-guest-network.test.ts's stand-in VM included
    expect((await runCommand(['ip', '-br', 'addr'])).stdout).not.toContain('198.18.');
    // The VM routes and the image server's VM-side address go too.
    expect((await runCommand(['ip', 'route'])).stdout).not.toContain('198.18.');

    for (const user of [lab.user, lab.nonLibvirtUser]) expect((await runCommand(['id', user])).exitCode).not.toBe(0);
    expect(existsSync('/etc/polkit-1/rules.d/50-kvm2lab.rules')).toBe(false);
    expect(ptmxIsDevice()).toBe(true);
    // Only the test run's own reports may stay in .lab.
    expect(readdirSync(lab.dir).filter((name) => name !== 'reports')).toEqual([]);
    await expect(fetch(`${lab.imageServer.url}/healthz`)).rejects.toThrow();
  });

  it('an up.sh that fails half way (its image server cannot start) leaves nothing of its own running', async () => {
    // Something else holds the image server's port and answers only on loopback: up.sh starts
    // both hosts, then waits in vain for its image server on the VM link.
    const squatter = createServer((_req, res) => res.end('not the lab\n'));
    await new Promise<void>((resolve) => squatter.listen(Number(new URL(lab.imageServer.url).port), '127.0.0.1', resolve));
    try {
      const up = await runCommand(['bash', labScript('up.sh')], { timeoutMs: 600_000 });
      expect(up.exitCode).not.toBe(0);
      expect(up.stderr).toContain('timed out after 10s waiting for the image server');
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    expect(processesNaming(`${lab.dir}/`)).toEqual([]);
    for (const host of lab.hosts) expect((await runCommand(['ip', 'netns', 'pids', host.netns])).stdout.trim()).toBe('');
  });

  it('up.sh refuses to start next to an old one-hypervisor lab, starting nothing; down.sh removes that lab', async () => {
    // The old layout's hypervisor namespace, with a process standing in for its libvirtd.
    await runCommand(['ip', 'netns', 'add', 'kvm2lab-hv']);
    const oldDaemon = spawn('ip', ['netns', 'exec', 'kvm2lab-hv', 'sleep', '600'], { stdio: 'ignore' });
    try {
      await waitUntilRunning(oldDaemon);
      const up = await runCommand(['bash', labScript('up.sh')], { timeoutMs: 120_000 });
      expect(up.exitCode).not.toBe(0);
      expect(up.stderr).toContain('an old one-hypervisor lab is up');
      expect(processesNaming(`${lab.dir}/`)).toEqual([]);
      expect(existsSync(join(lab.dir, 'lab.json'))).toBe(false);

      const down = await runCommand(['bash', labScript('down.sh')], { timeoutMs: 120_000 });
      expect(down.exitCode, down.stderr).toBe(0);
      expect(down.stderr).toContain('removing an old one-hypervisor lab');
      expect(await namespacesListed()).not.toContain('kvm2lab-hv');
      expect(running(oldDaemon.pid ?? 0)).toBe(false);
    } finally {
      oldDaemon.kill('SIGKILL');
      await runCommand(['ip', 'netns', 'delete', 'kvm2lab-hv']);
    }
  });

  it('comes back with a second lab:up, empty of domains and reachable on both hosts', async () => {
    const up = await runCommand(['bash', labScript('up.sh')], { timeoutMs: 600_000 });
    expect(up.exitCode, up.stderr).toBe(0);
    const again = loadLab();
    for (const host of again.hosts) {
      expect((await virsh(['list', '--all', '--name'], host)).trim()).toBe('');
      const pools = await virsh(['pool-list', '--all', '--name'], host);
      expect(pools).toContain(again.pool.name);
      expect(pools).toContain(again.inactivePool.name);
      expect((await virsh(['vol-list', '--pool', again.pool.name], host)).trim()).toBe('');
      const listed = await runCommand(['virsh', '-q', '-c', labLibvirtUri(again, host), 'pool-list', '--name']);
      expect(listed.stdout, listed.stderr).toContain(again.pool.name);
      // The guest variant: each host's VM network routed from here through the host.
      expect((await runCommand(['ip', 'route', 'show', host.vmNetwork])).stdout).toContain(`via ${host.host} dev`);
    }
    expect((await fetch(`${again.imageServer.url}/healthz`)).status).toBe(200);
    const guest = JSON.parse(readFileSync(join(again.dir, 'guest.json'), 'utf8')) as { imageServerVmUrl: string };
    expect((await fetch(`${guest.imageServerVmUrl}/healthz`)).status).toBe(200);
    expect(ptmxIsDevice()).toBe(true);
  });
});
