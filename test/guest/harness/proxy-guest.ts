// What the real-guest tests ask of a Proxy and look for on the host: the cloud-init that turns the
// guest image into a proxy for the lab network, the guest's DHCP lease, and the traces a deleted
// Proxy must not leave behind.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lab } from '@/test/lab/harness/lab';
import { runCommand, virsh } from '@/test/lab/harness/lab';

export const markerPath = '/var/lib/kvm2-guest-test/marker';

export interface SquidCloudInit {
  userData: string;
  marker: string;
}

/**
 * A cloud-config that opens Squid to the lab's addresses and leaves a marker file. write_files
 * runs in cloud-init's init stage, before squid.service starts, so Squid starts with it. The
 * comment line carries a random token and non-ASCII text, so the byte-for-byte check means something.
 */
export function squidCloudInit(): SquidCloudInit {
  const marker = `kvm2-guest-${randomBytes(8).toString('hex')}`;
  const userData = `#cloud-config
# kvm2 real-guest test ${marker} · übersetzt ✓
write_files:
  - path: /etc/squid/conf.d/kvm2-lab.conf
    content: |
      visible_hostname kvm2-guest-test
      acl kvm2lab src 198.18.0.0/15
      http_access allow kvm2lab
  - path: ${markerPath}
    content: "${marker}\\n"
`;
  return { userData, marker };
}

/** The MAC of DOMAIN's one NIC. */
export async function domainMac(domain: string): Promise<string> {
  const listing = await virsh(['domiflist', domain]);
  const mac = /([0-9a-f]{2}(?::[0-9a-f]{2}){5})/i.exec(listing)?.[1];
  if (!mac) throw new Error(`no MAC in domiflist ${domain}: ${listing}`);
  return mac.toLowerCase();
}

/** The address the lab's dnsmasq leased to MAC, if any. */
export function leasedAddress(lab: Lab, mac: string): string | undefined {
  const leases = join(lab.dir, 'run', 'dnsmasq.leases');
  if (!existsSync(leases)) return undefined;
  const line = readFileSync(leases, 'utf8')
    .split('\n')
    .find((entry) => entry.split(' ')[1]?.toLowerCase() === mac);
  return line?.split(' ')[2];
}

/** What is left on the host of INSTANCE: domain, volumes, NVRAM, a QEMU process. Empty when clean. */
export async function instanceTraces(lab: Lab, instance: string): Promise<string[]> {
  const traces: string[] = [];
  const domains = (await virsh(['list', '--all', '--name'])).split('\n').map((line) => line.trim());
  if (domains.includes(instance)) traces.push(`domain ${instance}`);
  const volumes = (await virsh(['vol-list', '--pool', lab.pool.name])).split('\n').map((line) => line.trim().split(/\s+/)[0]);
  for (const volume of [`${instance}.qcow2`, `${instance}-seed.iso`]) if (volumes.includes(volume)) traces.push(`volume ${volume}`);
  for (const file of readdirSync(lab.pool.path)) if (file.startsWith(instance)) traces.push(`file ${join(lab.pool.path, file)}`);
  const nvram = `/var/lib/libvirt/qemu/nvram/${instance}_VARS.fd`;
  if (existsSync(nvram)) traces.push(`NVRAM ${nvram}`);
  const processes = await runCommand(['pgrep', '-f', `guest=${instance}`]);
  if (processes.stdout.trim() !== '') traces.push(`QEMU process ${processes.stdout.trim()}`);
  return traces;
}
