// What the real-guest tests ask of a Proxy: the cloud-init that turns the guest image into a proxy
// for the lab network (what they look for on the host: guest-domain.ts).
import { randomBytes } from 'node:crypto';

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
