// The Squid cloud-init preset: a cloud-config that installs Squid on the Proxy's port and lets only
// the networks the admin entered use it. Never `allow all`: the spec warns the sample is an open
// proxy, so a network list that would admit everyone is refused here.
import { z } from 'zod';

const cidr = z.union([z.cidrv4(), z.cidrv6()]);
const address = z.union([z.ipv4(), z.ipv6()]);
const everyone = new Set(['0.0.0.0/0', '::/0']);

export interface NetworkList {
  networks: string[];
  /** why the list cannot be used; undefined when it can */
  error?: string;
}

/** Networks separated by commas, spaces or new lines; a bare address means that address alone. */
export function parseNetworks(text: string): NetworkList {
  const items = text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) return { networks: [], error: 'Enter at least one network allowed to use the proxy, e.g. 192.168.1.0/24.' };
  const networks: string[] = [];
  for (const item of items) {
    if (address.safeParse(item).success) networks.push(item.includes(':') ? `${item}/128` : `${item}/32`);
    else if (cidr.safeParse(item).success) networks.push(item);
    else return { networks, error: `${item} is not a network (CIDR such as 10.0.0.0/8) or an IP address.` };
    const last = networks[networks.length - 1] ?? '';
    if (everyone.has(last))
      return { networks, error: `${item} would let anyone on the internet use the proxy (an open proxy). List your own networks instead.` };
  }
  return { networks: [...new Set(networks)] };
}

export function squidCloudInit(options: { port: number; networks: string[] }): string {
  const acl = options.networks.map((network) => `      acl allowed_clients src ${network}`).join('\n');
  return `#cloud-config
# Squid egress proxy (dashboard preset): only the networks below may use it.
packages:
  - squid
write_files:
  - path: /etc/squid/squid.conf
    defer: true
    permissions: '0644'
    content: |
      http_port ${options.port}
${acl}
      acl SSL_ports port 443
      acl Safe_ports port 80 443 1025-65535
      acl CONNECT method CONNECT
      http_access deny !Safe_ports
      http_access deny CONNECT !SSL_ports
      http_access allow allowed_clients
      http_access deny all
      cache deny all
      forwarded_for delete
      via off
runcmd:
  - systemctl enable squid
  - systemctl restart squid
`;
}
