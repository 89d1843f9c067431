// The health reasons a host check reports (the spec's *Health check* table), in plain language for
// the dashboard: what happened and where to look. Browser-safe: no node: imports. `{pool}`, `{user}`
// and `{address}` in a hint are filled from the target's details when the check gathered them.

export type HealthSeverity = 'ok' | 'warning' | 'error';

export interface HealthReasonInfo {
  /** a short label for badges */
  title: string;
  severity: HealthSeverity;
  /** what the reason means, for someone who has not read the spec */
  meaning: string;
  /** where to look to fix it; empty when there is nothing to fix */
  lookAt: string;
}

export const healthReasons: Record<string, HealthReasonInfo> = {
  Reachable: {
    title: 'Reachable',
    severity: 'ok',
    meaning: 'SSH, libvirt and the storage pool all answered. The host is ready for Proxies.',
    lookAt: '',
  },
  CredentialsUnavailable: {
    title: 'Credentials unavailable',
    severity: 'error',
    meaning: 'The SSH private key or the known_hosts file is missing on this server, or does not parse.',
    lookAt:
      'The files named by sshKeyFile and knownHostsFile in the providers config (the private key, not the .pub). This is fixed on the dashboard server, not on the host; the next check reads the files again.',
  },
  Unreachable: {
    title: 'Unreachable',
    severity: 'error',
    meaning:
      'The host could not be reached: the TCP connection failed or timed out, SSH failed for a reason other than authentication, the forwarded libvirt socket was refused, or the link died during the check.',
    lookAt: 'DNS, VPN or a firewall between this server and {address}; that libvirtd is running on the host and the socket path is right.',
  },
  Unauthorized: {
    title: 'Unauthorized',
    severity: 'error',
    meaning: 'The SSH server rejected the key, or the host key is missing from known_hosts or has changed.',
    lookAt: "{user}'s ~/.ssh/authorized_keys on the host; the host's known_hosts entry (re-run ssh-keyscan -H and update the file).",
  },
  Forbidden: {
    title: 'Forbidden',
    severity: 'error',
    meaning: 'SSH worked, but libvirt refused the user.',
    lookAt: 'That {user} is a member of the libvirt group on the host (then log in again so the group applies).',
  },
  Timeout: {
    title: 'Timeout',
    severity: 'error',
    meaning: 'The check did not finish in time: the dial, the handshake or a libvirt call ran out of its budget.',
    lookAt: 'A hung libvirtd, a saturated link, or a check timeout (PROVIDER_CHECK_TIMEOUT) shorter than the dial takes.',
  },
  PoolNotFound: {
    title: 'Pool not found',
    severity: 'error',
    meaning: 'libvirt has no storage pool named {pool}.',
    lookAt: 'virsh pool-list --all on the host, and hosts[].pool in the providers config.',
  },
  PoolNotActive: {
    title: 'Pool not active',
    severity: 'warning',
    meaning: 'The storage pool {pool} exists but is not running, so no Proxy can be created on this host.',
    lookAt: 'virsh pool-start {pool} and virsh pool-autostart {pool} on the host.',
  },
  APIError: {
    title: 'libvirt error',
    severity: 'error',
    meaning: 'libvirt answered with an error the check does not recognise.',
    lookAt: "The message below, which carries libvirt's own text.",
  },
  CheckFailed: {
    title: 'Check failed',
    severity: 'error',
    meaning: 'The provider could not run its check at all.',
    lookAt: 'The message below and the server log.',
  },
};

const unknownReason = (reason: string): HealthReasonInfo => ({
  title: reason || 'Unknown',
  severity: 'error',
  meaning: 'The check reported a reason this dashboard does not know.',
  lookAt: 'The message below and the server log.',
});

const placeholder = /\{(pool|user|address)\}/g;
const fallbacks: Record<string, string> = { pool: 'the pool', user: 'the SSH user', address: 'the host address' };

function fill(text: string, details: Record<string, string>): string {
  return text.replace(placeholder, (_match, key: string) => details[key] ?? fallbacks[key] ?? key);
}

/** The explanation of `reason`, with the host's pool, user and address filled in where known. */
export function explainHealthReason(reason: string, details: Record<string, string> = {}): HealthReasonInfo {
  const info = healthReasons[reason] ?? unknownReason(reason);
  return { ...info, meaning: fill(info.meaning, details), lookAt: fill(info.lookAt, details) };
}
