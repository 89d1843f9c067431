// Idle lab domains for the telemetry, event and console tests: no disk and no OS (SeaBIOS idles
// under software emulation, which still burns CPU time and so moves the counters), one NIC on the
// lab bridge, a serial console on a pty, optionally kvm2's mark. Named with the rpc test prefix,
// so removeRpcTestLeftovers cleans them up; libvirtd restarts come from the lab's own up.sh.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import type { LibvirtClient } from '@/server/libvirt';
import { buildMetadataXML } from '@/server/providers/kvm2/metadata';
import { type Lab, loadLab, virsh } from './harness/lab';
import { stopHostDaemon } from './harness/stop-daemon';
import { openOverSsh, removeRpcTestLeftovers } from './rpc-lab-support';

export function idleDomainXml(options: { name: string; lab: Lab; uid?: string }): string {
  const mark = options.uid ? `<metadata>${buildMetadataXML({ managed: true, uid: options.uid, created: '2026-01-01T00:00:00Z' })}</metadata>` : '';
  return `
<domain type="qemu">
  <name>${options.name}</name>
  <memory unit="MiB">64</memory>
  <vcpu>1</vcpu>
  <cpu mode="maximum"/>
  ${mark}
  <os><type arch="x86_64" machine="pc">hvm</type><bios useserial="yes"/></os>
  <devices>
    <interface type="bridge"><source bridge="${options.lab.bridge}"/><model type="virtio"/></interface>
    <serial type="pty"/>
    <console type="pty"/>
  </devices>
</domain>`;
}

/** Defines and starts an idle domain through root's virsh; `paused` starts it with its CPU stopped. */
export async function startIdleDomain(options: { name: string; lab: Lab; uid?: string; paused?: boolean }): Promise<void> {
  const file = `${options.lab.dir}/${options.name}.xml`;
  writeFileSync(file, idleDomainXml(options));
  try {
    await virsh(['define', file]);
  } finally {
    rmSync(file, { force: true });
  }
  await virsh(['start', ...(options.paused ? ['--paused'] : []), options.name]);
}

/**
 * A test file's idle domain `name`, started before its tests (paused when asked) with a client
 * of ours open over SSH, and everything rpc-prefixed removed afterwards.
 */
export function idleDomainSuite(options: { name: string; paused?: boolean }): { lab: Lab; libvirt: LibvirtClient } {
  const suite = {} as { lab: Lab; libvirt: LibvirtClient };
  beforeAll(async () => {
    suite.lab = loadLab();
    await removeRpcTestLeftovers(suite.lab.pool.name);
    await startIdleDomain({ name: options.name, lab: suite.lab, paused: options.paused });
    suite.libvirt = await openOverSsh(suite.lab);
  });
  afterAll(async () => {
    await suite.libvirt?.close();
    await removeRpcTestLeftovers(suite.lab.pool.name);
  });
  return suite;
}

const run = promisify(execFile);
const upScript = fileURLToPath(new URL('./up.sh', import.meta.url));

/** Stops lab1's libvirtd (its domains keep running) and brings it back with up.sh. */
export async function restartLibvirtd(): Promise<void> {
  await stopHostDaemon(loadLab().hosts[0]!, 'libvirtd');
  await run('bash', [upScript], { timeout: 120_000 });
}
