// A Proxy's VM as the real-guest tests look at it on its lab host (lab1 or lab2: two hypervisors,
// each with its own libvirtd, pool, DHCP server and NVRAM directory): its MAC, its DHCP lease, and
// the traces a deleted Proxy must not leave behind.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabHost } from '@/test/lab/harness/lab';
import { runCommand, virsh } from '@/test/lab/harness/lab';

export interface GuestDomain {
  host: LabHost;
  /** the domain name (the Proxy's instance name) */
  name: string;
}

/** The MAC of the domain's one NIC. */
export async function domainMac(domain: GuestDomain): Promise<string> {
  const listing = await virsh(['domiflist', domain.name], domain.host);
  const mac = /([0-9a-f]{2}(?::[0-9a-f]{2}){5})/i.exec(listing)?.[1];
  if (!mac) throw new Error(`no MAC in domiflist ${domain.name}: ${listing}`);
  return mac.toLowerCase();
}

/** The address the host's dnsmasq leased to MAC, if any. */
export function leasedAddress(host: LabHost, mac: string): string | undefined {
  if (!existsSync(host.dhcpLeasesFromRoot)) return undefined;
  const line = readFileSync(host.dhcpLeasesFromRoot, 'utf8')
    .split('\n')
    .find((entry) => entry.split(' ')[1]?.toLowerCase() === mac);
  return line?.split(' ')[2];
}

/** What is left on the host of the domain: definition, volumes, NVRAM, a QEMU process. Empty when clean. */
export async function instanceTraces(domain: GuestDomain): Promise<string[]> {
  const { host, name } = domain;
  const traces: string[] = [];
  const domains = (await virsh(['list', '--all', '--name'], host)).split('\n').map((line) => line.trim());
  if (domains.includes(name)) traces.push(`domain ${name}`);
  const volumes = (await virsh(['vol-list', '--pool', host.pool.name], host)).split('\n').map((line) => line.trim().split(/\s+/)[0]);
  for (const volume of [`${name}.qcow2`, `${name}-seed.iso`]) if (volumes.includes(volume)) traces.push(`volume ${volume}`);
  for (const file of readdirSync(host.pool.pathFromRoot)) if (file.startsWith(name)) traces.push(`file ${join(host.pool.path, file)}`);
  const nvram = `/var/lib/libvirt/qemu/nvram/${name}_VARS.fd`;
  if (existsSync(`${host.rootPath}${nvram}`)) traces.push(`NVRAM ${nvram}`);
  const processes = await runCommand(['pgrep', '-f', `guest=${name}`]);
  if (processes.stdout.trim() !== '') traces.push(`QEMU process ${processes.stdout.trim()}`);
  return traces;
}
