// The health check (the spec's *Health check*): one target per configured host, in config order,
// all checked concurrently. Each probe dials a fresh connection (never the pooled one, so a check
// that runs out of time cannot fail a reconcile's call, and a rotated key is used at once), runs
// ConnectGetLibVersion, ConnectGetHostname, StoragePoolLookupByName and StoragePoolGetInfo, and
// closes it. Details gather as the answers arrive, so a check that breaks late still says what
// the host answered before; the reason says where it broke.
import { AbortFanOut } from '@/lib/abort-fan-out';
import { AuthUnsupportedError, CallTimeoutError, isLibvirtError, LibvirtError, StoragePoolState, storagePoolStateWords } from '@/server/libvirt';
import type { CheckOptions, Target, TargetPool } from '@/server/providers/contract';
import { SshError, type SshErrorCode } from '@/server/ssh';
import type { Logger } from '@/server/telemetry/logger';
import { addVirtTypeDetails } from './check-virt-type';
import { findInCauses } from './errors';
import type { Kvm2Host, Kvm2Settings } from './kvm2';
import type { FreshConnection, HostBackend } from './libvirt-api';
import { errorMessage } from '@/lib/error-message';

export type CheckReason =
  'Reachable' | 'CredentialsUnavailable' | 'Unreachable' | 'Unauthorized' | 'Forbidden' | 'Timeout' | 'PoolNotFound' | 'PoolNotActive' | 'APIError';

export interface CheckReasonInfo {
  ready: boolean;
  meaning: string;
  /** Where an admin looks to fix it. */
  lookAt: string;
}

export const checkReason: Record<CheckReason, CheckReasonInfo> = {
  Reachable: { ready: true, meaning: 'ready', lookAt: '' },
  CredentialsUnavailable: {
    ready: false,
    meaning: 'the key or known_hosts file is missing or does not parse',
    lookAt: 'the sshKeyFile and knownHostsFile on the server (the kvm-ssh Secret); fixed on the server, not on the host',
  },
  Unreachable: {
    ready: false,
    meaning:
      'the TCP connect failed or ran out of the dial budget, the SSH transport failed for a reason other than authentication, the forwarded libvirt socket was refused, or the link died mid-check',
    lookAt: 'DNS, VPN or a firewall between the server and the address; libvirtd running and the socket path',
  },
  Unauthorized: {
    ready: false,
    meaning: 'the SSH server rejected the key, or the host key is missing from known_hosts or has changed',
    lookAt: "the user's authorized_keys; the known_hosts entry (re-run ssh-keyscan -H and update the file)",
  },
  Forbidden: {
    ready: false,
    meaning: 'SSH worked, but libvirt refused the user',
    lookAt: 'the user in the libvirt group',
  },
  Timeout: {
    ready: false,
    meaning: "the round's timeout ran out before the check finished, or an RPC's own budget ran out",
    lookAt: 'a hung libvirtd, a saturated link, or a round timeout shorter than the dial takes',
  },
  PoolNotFound: { ready: false, meaning: 'there is no storage pool of that name', lookAt: 'virsh pool-list --all' },
  PoolNotActive: {
    ready: false,
    meaning: 'the storage pool exists but is not running',
    lookAt: 'virsh pool-start <pool> and virsh pool-autostart <pool>',
  },
  APIError: { ready: false, meaning: 'libvirt answered with an error', lookAt: "the message, which carries libvirt's own text" },
};

/** How far the probe got: a failure while dialling reads differently from one on a live connection. */
type Phase = 'dial' | 'rpc';

const sshCodeIn = (codes: SshErrorCode[]) => (err: unknown) => {
  const sshError = findInCauses(err, (e): e is SshError => e instanceof SshError);
  return sshError !== undefined && codes.includes(sshError.code);
};
const libvirtCodeIn = (names: Parameters<typeof isLibvirtError>[1][]) => (err: unknown) =>
  names.some((name) => findInCauses(err, (e): e is LibvirtError => isLibvirtError(e, name)) !== undefined);
const has = (type: abstract new (...args: never[]) => Error) => (err: unknown) => findInCauses(err, (e): e is Error => e instanceof type) !== undefined;

// First match wins; what matches nothing is Unreachable (the SSH transport, a refused socket, a
// link that died, a dial that ran out of its own budget).
const reasonRules: Array<{ reason: CheckReason; matches: (err: unknown, phase: Phase) => boolean }> = [
  { reason: 'CredentialsUnavailable', matches: sshCodeIn(['SSH_CREDENTIALS_MISSING', 'SSH_CREDENTIALS_INVALID']) },
  {
    reason: 'Unauthorized',
    matches: sshCodeIn(['SSH_AUTH_FAILED', 'SSH_HOST_KEY_UNKNOWN', 'SSH_HOST_KEY_CHANGED', 'SSH_HOST_KEY_REVOKED']),
  },
  { reason: 'Forbidden', matches: (err) => libvirtCodeIn(['ErrAuthFailed', 'ErrAccessDenied'])(err) || has(AuthUnsupportedError)(err) },
  { reason: 'PoolNotFound', matches: libvirtCodeIn(['ErrNoStoragePool']) },
  { reason: 'APIError', matches: has(LibvirtError) },
  { reason: 'Timeout', matches: (err, phase) => phase === 'rpc' && has(CallTimeoutError)(err) },
];

/** The reason a probe that failed with `err` reports, when the round itself still had time. */
export function reasonFor(err: unknown, phase: Phase): CheckReason {
  return reasonRules.find((rule) => rule.matches(err, phase))?.reason ?? 'Unreachable';
}

export interface ProbeHostOptions {
  backend: HostBackend;
  host: Kvm2Host;
  logger: Logger;
  /** The round's timeout: when it fires, whatever was running ends and the reason is Timeout. */
  signal?: AbortSignal;
  /** this host's details as last recorded (for conditions that outlive one check, e.g. KVM lost) */
  previous?: Record<string, string>;
  now?: () => Date;
}

const bytesPerGiB = 1024 ** 3;
const gib = (bytes: number): string => (bytes / bytesPerGiB).toFixed(2);

/** 9000000 -> "9.0.0" (libvirt encodes major * 1,000,000 + minor * 1,000 + micro). */
export function formatLibVersion(version: number): string {
  return `${Math.floor(version / 1_000_000)}.${Math.floor(version / 1_000) % 1_000}.${version % 1_000}`;
}

interface Outcome {
  reason: CheckReason;
  message: string;
}

/** What the probe gathers: the spec's text details, and the pool's facts typed beside them. */
interface Facts {
  details: Record<string, string>;
  pool: TargetPool;
}

async function runProbe(options: ProbeHostOptions, facts: Facts): Promise<Outcome> {
  const { details } = facts;
  const { backend, host, signal, logger, previous, now = () => new Date() } = options;
  let phase: Phase = 'dial';
  let connection: FreshConnection | undefined;
  try {
    connection = await backend.fresh(host.name, { signal, healthCheck: true });
    phase = 'rpc';
    const { api } = connection;
    details.libvirtVersion = formatLibVersion(await api.connectGetLibVersion({ signal }));
    details.hostname = await api.connectGetHostname({ signal });
    const pool = await api.storagePoolLookupByName({ name: host.pool, signal });
    const info = await api.storagePoolGetInfo({ pool, signal });
    details.poolState = storagePoolStateWords[info.state] ?? `state ${info.state}`;
    details.poolCapacityGiB = gib(info.capacity);
    details.poolAvailableGiB = gib(info.available);
    Object.assign(facts.pool, { state: details.poolState, capacityBytes: info.capacity, availableBytes: info.available });
    await addVirtTypeDetails(details, { api, host, previous, logger, now, signal });
    if (info.state !== StoragePoolState.Running) {
      return { reason: 'PoolNotActive', message: `storage pool ${JSON.stringify(host.pool)} is ${details.poolState}, not running` };
    }
    return { reason: 'Reachable', message: '' };
  } catch (err) {
    const text = errorMessage(err);
    if (signal?.aborted) {
      const stage = phase === 'dial' ? 'while connecting' : 'while querying libvirt';
      return { reason: 'Timeout', message: `the check ran out of the round's time ${stage}: ${text}` };
    }
    return { reason: reasonFor(err, phase), message: text };
  } finally {
    // A check cut short by the round must not outlast it: close in the background then.
    const closing = connection?.close();
    if (!signal?.aborted) await closing;
  }
}

/** Checks one host on a connection of its own; never throws. */
export async function probeHost(options: ProbeHostOptions): Promise<Target> {
  const { host, logger } = options;
  const started = performance.now();
  const details: Record<string, string> = { user: host.user, pool: host.pool };
  const pool: TargetPool = { name: host.pool };
  const { reason, message } = await runProbe(options, { details, pool });
  const latencyMs = Math.round(performance.now() - started);
  const { ready } = checkReason[reason];
  logger.debug({ host: host.name, ready, reason, latency: latencyMs }, 'kvm2 host checked');
  return { name: host.name, ready, reason, message, details, pool, latencyMs, checkedAt: new Date().toISOString() };
}

export interface CheckHostsOptions {
  backend: HostBackend;
  settings: Kvm2Settings;
  logger: Logger;
  signal?: AbortSignal;
  aroundTarget?: CheckOptions['aroundTarget'];
  previous?: CheckOptions['previous'];
  now?: () => Date;
}

/**
 * One target per configured host, in config order, all probed concurrently. Each probe gets a
 * child of the round's signal, so that signal carries one listener however many hosts there are.
 */
export async function checkHosts(options: CheckHostsOptions): Promise<Target[]> {
  const { settings, aroundTarget = (_target, check) => check(), previous, signal, ...rest } = options;
  const previousDetails = (host: string) => previous?.find((target) => target.name === host)?.details;
  const fan = new AbortFanOut(signal);
  const probe = async (host: Kvm2Host): Promise<Target> => {
    const child = fan.child();
    try {
      return await probeHost({ ...rest, host, signal: child.signal, previous: previousDetails(host.name) });
    } finally {
      child.done();
    }
  };
  try {
    return await Promise.all(settings.hosts.map((host) => aroundTarget(host.name, () => probe(host))));
  } finally {
    fan.close();
  }
}
