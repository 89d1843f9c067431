// `lab:down` leaves nothing of the lab behind, and a second `lab:up` brings it back. Runs last
// (the `teardown` project), because it takes the lab away from every other test; it leaves the
// lab up again.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Lab, labLibvirtUri, loadLab, runCommand, virsh } from './harness/lab';

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

/** A running domain with an NVRAM file and a volume: what down.sh must clean up. */
async function startProbeDomain(lab: Lab): Promise<void> {
  await virsh(['vol-create-as', lab.pool.name, `${domainName}.qcow2`, '64M', '--format', 'qcow2']);
  const diskPath = (await virsh(['vol-path', '--pool', lab.pool.name, `${domainName}.qcow2`])).trim();
  const dir = mkdtempSync(join(tmpdir(), 'kvm2lab-'));
  try {
    writeFileSync(join(dir, 'domain.xml'), domainXml(diskPath));
    await virsh(['define', join(dir, 'domain.xml')]);
  } finally {
    rmSync(dir, { recursive: true });
  }
  await virsh(['start', domainName]);
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

function readPidFiles(dir: string): Map<string, number> {
  const pids = new Map<string, number>();
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.pid'))) {
    pids.set(name, Number(readFileSync(join(dir, name), 'utf8').trim()));
  }
  return pids;
}

/** Ourselves and our ancestors: their command lines may name .lab (the JSON report path). */
function ownLineage(): Set<number> {
  const lineage = new Set<number>();
  for (let pid = process.pid; pid > 1; ) {
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

describe('lab:down, then lab:up again', () => {
  let lab: Lab;
  let pids: Map<string, number>;
  let qemuPid: number;

  it('removes every domain, volume, pool, process, namespace, user and file of the lab', async () => {
    lab = loadLab();
    await startProbeDomain(lab);
    pids = readPidFiles(join(lab.dir, 'run'));
    qemuPid = Number(readFileSync(`/var/run/libvirt/qemu/${domainName}.pid`, 'utf8').trim());
    expect(running(qemuPid)).toBe(true);
    expect([...pids.keys()]).toEqual(expect.arrayContaining(['libvirtd.pid', 'sshd-lab1.pid', 'image-server.pid']));

    const down = await runCommand(['bash', labScript('down.sh')], { timeoutMs: 240_000 });
    expect(down.stderr).toContain('lab is down');
    expect(down.exitCode).toBe(0);

    const survivors = [...pids].filter(([, pid]) => running(pid)).map(([name]) => name);
    expect(survivors).toEqual([]);
    expect(running(qemuPid)).toBe(false);
    expect(processesNaming(`${lab.dir}/`)).toEqual([]);
    expect(processesNaming(`guest=${domainName}`)).toEqual([]);

    expect((await runCommand(['virsh', '-c', 'qemu:///system', 'list'])).exitCode).not.toBe(0);
    expect(existsSync(`/etc/libvirt/qemu/${domainName}.xml`)).toBe(false);
    expect(existsSync(`/var/lib/libvirt/qemu/nvram/${domainName}_VARS.fd`)).toBe(false);
    expect(existsSync(`/etc/libvirt/storage/${lab.pool.name}.xml`)).toBe(false);
    expect(existsSync(`/etc/libvirt/storage/${lab.inactivePool.name}.xml`)).toBe(false);
    expect(existsSync(lab.pool.path)).toBe(false);
    expect(existsSync(lab.inactivePool.path)).toBe(false);

    const namespaces = (await runCommand(['ip', 'netns', 'list'])).stdout;
    for (const netns of [lab.hypervisorNetns, ...lab.hosts.map((host) => host.netns)]) {
      expect(namespaces).not.toContain(netns);
    }
    expect(namespaces).not.toContain('kvm2lab-'); // lab-guest-network.test.ts's stand-in VM included
    expect((await runCommand(['ip', '-br', 'addr'])).stdout).not.toContain('198.18.');
    // The guest variant's veth pair and its route to the VM network go too.
    expect((await runCommand(['ip', 'route'])).stdout).not.toContain('198.18.');
    expect((await runCommand(['ip', 'link', 'show', 'kvm2lab-vmnet'])).exitCode).not.toBe(0);

    for (const user of [lab.user, lab.nonLibvirtUser]) expect((await runCommand(['id', user])).exitCode).not.toBe(0);
    expect(existsSync('/etc/polkit-1/rules.d/50-kvm2lab.rules')).toBe(false);
    // Only the test run's own reports may stay in .lab.
    expect(readdirSync(lab.dir).filter((name) => name !== 'reports')).toEqual([]);
    await expect(fetch(`${lab.imageServer.url}/healthz`)).rejects.toThrow();
  });

  it('comes back with a second lab:up, empty of domains and reachable on both hosts', async () => {
    const up = await runCommand(['bash', labScript('up.sh')], { timeoutMs: 600_000 });
    expect(up.exitCode, up.stderr).toBe(0);
    const again = loadLab();
    expect((await virsh(['list', '--all', '--name'])).trim()).toBe('');
    const pools = await virsh(['pool-list', '--all', '--name']);
    expect(pools).toContain(again.pool.name);
    expect(pools).toContain(again.inactivePool.name);
    expect((await virsh(['vol-list', '--pool', again.pool.name])).trim()).toBe('');
    for (const host of again.hosts) {
      const listed = await runCommand(['virsh', '-q', '-c', labLibvirtUri(again, host), 'pool-list', '--name']);
      expect(listed.stdout, listed.stderr).toContain(again.pool.name);
    }
    expect((await fetch(`${again.imageServer.url}/healthz`)).status).toBe(200);
    // The guest variant: the VM network routed from here, the image server on the VM link.
    const guest = JSON.parse(readFileSync(join(again.dir, 'guest.json'), 'utf8')) as { vmNetwork: string; imageServerVmUrl: string };
    expect((await runCommand(['ip', 'route', 'show', guest.vmNetwork])).stdout).toContain('via 198.18.0.2 dev kvm2lab-vmnet');
    expect((await fetch(`${guest.imageServerVmUrl}/healthz`)).status).toBe(200);
  });
});
