// up.sh checks each daemon of each host by asking it on its socket, not by its pid alone: a
// virtlogd whose socket is gone (every domain start then fails with "Failed to connect socket to
// '/run/libvirt/virtlogd-sock'") and a D-Bus whose socket is gone are restarted (and with the bus,
// what depends on it), after which domains start and polkit authorises the libvirt user again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { labLibvirtUri, loadLab, removeDomain, runCommand, virsh } from './harness/lab';

const upScript = fileURLToPath(new URL('./up.sh', import.meta.url));
const domainName = 'kvm2lab-daemon-check';
const dir = mkdtempSync(join(tmpdir(), 'kvm2lab-daemon-check-'));
const domainFile = join(dir, 'domain.xml');
writeFileSync(
  domainFile,
  `<domain type="qemu"><name>${domainName}</name><memory unit="MiB">64</memory><vcpu>1</vcpu>
  <os><type arch="x86_64" machine="q35">hvm</type></os><cpu mode="maximum"/><devices/></domain>`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('up.sh on a lab whose daemons lost their sockets', () => {
  const lab = loadLab();

  it.each(lab.hosts.map((host) => [host.name, host] as const))('restarts what does not answer on %s', async (_name, host) => {
    rmSync(`${host.rootPath}/run/libvirt/virtlogd-sock`);
    rmSync(`${host.rootPath}/run/dbus/system_bus_socket`);
    const up = await runCommand(['bash', upScript], { timeoutMs: 300_000 });
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stderr).toContain(`${host.name}: virtlogd runs but does not answer on its socket: restarting it`);
    expect(up.stderr).toContain(`${host.name}: dbus runs but does not answer on its socket: restarting it`);
    // QEMU's log goes through virtlogd: without it no domain starts.
    try {
      await virsh(['create', domainFile], host);
      expect((await virsh(['domstate', domainName], host)).trim()).toBe('running');
    } finally {
      await removeDomain(domainName, host);
    }
    // The libvirt user is authorised through polkit over the new bus.
    const listed = await runCommand(['virsh', '-q', '-c', labLibvirtUri(lab, host), 'pool-list', '--name']);
    expect(listed.stdout, listed.stderr).toContain(lab.pool.name);
  });
});
