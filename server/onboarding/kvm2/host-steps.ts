// What the Add host wizard asks a candidate host (not yet in the config), each on a fresh
// connection of its own through the same backend the provider uses (budgets, spans, log lines):
// open libvirt, list pools and bridges, read what it can run, run the health check. A failure
// carries the health check's reason word and the fix, with the candidate's user and socket in it.
//
// Bridges: libvirt has no one listing that works everywhere. Its interface driver lists host
// bridges (`<interface type='bridge'>`), but Debian 13's libvirt 11.3 ships without it
// (ErrNoSupport); node devices of the net capability list only the devices udev announced
// (no bridge made after libvirtd started, on either lab host). Libvirt networks name their bridge
// (`<bridge name=...>`), and an existing host bridge is exposed to libvirt as a network with
// `<forward mode='bridge'/>`. So: interfaces of type bridge, plus the bridges of active networks.
import { SshError } from '@/server/ssh';
import { storagePoolStateWords, isLibvirtError, LibvirtError } from '@/server/libvirt';
import type { Target } from '@/server/providers/contract';
import type { Logger } from '@/server/telemetry/logger';
import { formatLibVersion, probeHost, reasonFor, checkReason, type CheckReason } from '@/server/providers/kvm2/check';
import { findInCauses } from '@/server/providers/kvm2/errors';
import type { Kvm2Host } from '@/server/providers/kvm2/kvm2';
import type { FreshConnection, HostBackend, LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { offeredVirtType } from '@/server/providers/kvm2/virt-type';
import { attributeOf, childElement, childElements, parseXml, textOf } from '@/server/providers/kvm2/xml-codec';
import { errorMessage } from '@/lib/error-message';

export interface SetupFailure {
  reason: CheckReason;
  message: string;
  fix: string;
}

export type SetupResult<T> = ({ ok: true } & T) | ({ ok: false; failure: SetupFailure } & Partial<T>);

export interface SetupContext {
  backend: HostBackend;
  host: Kvm2Host;
  logger: Logger;
  /** the command that authorises the server's key for the candidate's user */
  authorise: string;
  signal?: AbortSignal;
}

const gib = (bytes: number): number => Math.round((bytes / 1024 ** 3) * 100) / 100;

/** The fix for a failed step, in the candidate's terms. */
export function fixFor(reason: CheckReason, context: { host: Kvm2Host; authorise: string; err?: unknown }): string {
  const { host, authorise, err } = context;
  const ssh = findInCauses(err, (candidate): candidate is SshError => candidate instanceof SshError);
  if (reason === 'Unauthorized' && ssh?.code.startsWith('SSH_HOST_KEY')) {
    return 'The host key is not trusted yet, or it changed: fetch it again in step 1 and compare the fingerprint on the host.';
  }
  if (reason === 'Unauthorized') return `The host refused the server's key for ${host.user}. Authorise it by running this on the host as root:\n${authorise}`;
  if (reason === 'Forbidden') {
    return `SSH works, but libvirt refused ${host.user}. Add the user to the libvirt group and let its sessions log in again:\nusermod -aG libvirt ${host.user}\n(the server opens a new session on the next step, which picks the group up)`;
  }
  if (reason === 'Unreachable' && ssh && 'stage' in ssh && ssh.stage === 'socket') {
    return `SSH works, but the libvirt socket ${host.socket} refused the connection: libvirtd is not running, or listens elsewhere. On the host: systemctl enable --now libvirtd (check the socket path with: ls -l ${host.socket}).`;
  }
  if (reason === 'Unreachable')
    return `Nothing answered SSH at ${host.address}: check the address and port, that sshd runs, and any firewall between this server and the host.`;
  if (reason === 'CredentialsUnavailable')
    return "The server's SSH key or known_hosts file is missing or does not parse: generate the key under Settings, and trust the host key in step 1.";
  return checkReason[reason].lookAt;
}

function failure(err: unknown, context: SetupContext, phase: 'dial' | 'rpc'): { ok: false; failure: SetupFailure } {
  const reason = reasonFor(err, phase);
  const message = errorMessage(err);
  return { ok: false, failure: { reason, message, fix: fixFor(reason, { ...context, err }) } };
}

/** Runs `work` on a fresh connection; dial and RPC failures become the step's failure. */
async function onFreshConnection<T>(context: SetupContext, work: (api: LibvirtAPI) => Promise<T>): Promise<SetupResult<T>> {
  let connection: FreshConnection;
  try {
    connection = await context.backend.fresh(context.host.name, { signal: context.signal });
  } catch (err) {
    return failure(err, context, 'dial');
  }
  try {
    return { ok: true, ...(await work(connection.api)) };
  } catch (err) {
    return failure(err, context, 'rpc');
  } finally {
    await connection.close();
  }
}

export function openLibvirt(context: SetupContext): Promise<SetupResult<{ libvirtVersion: string; hostname: string }>> {
  return onFreshConnection(context, async (api) => ({
    libvirtVersion: formatLibVersion(await api.connectGetLibVersion({ signal: context.signal })),
    hostname: await api.connectGetHostname({ signal: context.signal }),
  }));
}

export interface SetupPool {
  name: string;
  state: string;
  capacityGiB?: number;
  availableGiB?: number;
}

export interface SetupBridge {
  name: string;
  source: 'interface' | 'network';
  network?: string;
}

export interface HostResources {
  pools: SetupPool[];
  bridges: SetupBridge[];
  defaults: { pool?: string; bridge?: string };
  notes: string[];
}

async function listPools(api: LibvirtAPI, signal?: AbortSignal): Promise<SetupPool[]> {
  const pools = await api.connectListAllStoragePools({ signal });
  return Promise.all(
    pools.map(async (pool) => {
      const info = await api.storagePoolGetInfo({ pool, signal });
      const state = storagePoolStateWords[info.state] ?? `state ${info.state}`;
      return { name: pool.name, state, capacityGiB: gib(info.capacity), availableGiB: gib(info.available) };
    }),
  );
}

/** Host bridges from libvirt's interface driver; a host without it adds a note instead. */
async function interfaceBridges(api: LibvirtAPI, options: { signal?: AbortSignal; notes: string[] }): Promise<SetupBridge[]> {
  let interfaces;
  try {
    interfaces = await api.connectListAllInterfaces({ signal: options.signal });
  } catch (err) {
    if (!findInCauses(err, (e): e is LibvirtError => isLibvirtError(e, 'ErrNoSupport'))) throw err;
    options.notes.push(
      "libvirt on this host has no interface driver, so it cannot list the host's bridges; only libvirt networks are listed. Type the bridge's name if it is not among them (ip -br link show type bridge on the host).",
    );
    return [];
  }
  const bridges = await Promise.all(
    interfaces.map(async (iface) => {
      const xml = parseXml(await api.interfaceGetXmlDesc({ iface, signal: options.signal }), 'interface');
      return attributeOf(childElement(xml, 'interface'), 'type') === 'bridge' ? [{ name: iface.name, source: 'interface' as const }] : [];
    }),
  );
  return bridges.flat();
}

/** The bridges of the host's active libvirt networks (a network's XML names it even when libvirt made it). */
async function networkBridges(api: LibvirtAPI, signal?: AbortSignal): Promise<SetupBridge[]> {
  const activeOnly = 2; // VIR_CONNECT_LIST_NETWORKS_ACTIVE
  const networks = await api.connectListAllNetworks({ flags: activeOnly, signal });
  const bridges = await Promise.all(
    networks.map(async (net) => {
      const xml = childElement(parseXml(await api.networkGetXmlDesc({ net, signal }), 'network'), 'network');
      const bridge = attributeOf(childElement(xml, 'bridge'), 'name');
      return bridge ? [{ name: bridge, source: 'network' as const, network: net.name }] : [];
    }),
  );
  return bridges.flat();
}

export function listResources(context: SetupContext): Promise<SetupResult<HostResources>> {
  const { signal } = context;
  return onFreshConnection(context, async (api) => {
    const notes: string[] = [];
    const pools = await listPools(api, signal);
    const found = [...(await interfaceBridges(api, { signal, notes })), ...(await networkBridges(api, signal))];
    const bridges = found.filter((bridge, index) => found.findIndex((other) => other.name === bridge.name) === index);
    const pool = pools.find((candidate) => candidate.name === 'default')?.name ?? (pools.length === 1 ? pools[0]?.name : undefined);
    const bridge = bridges.length === 1 ? bridges[0]?.name : undefined;
    if (pools.length === 0)
      notes.push(
        'The host has no storage pool: define one (virsh pool-define-as default dir --target /var/lib/libvirt/images; virsh pool-start default; virsh pool-autostart default).',
      );
    return { pools, bridges, defaults: { ...(pool ? { pool } : {}), ...(bridge ? { bridge } : {}) }, notes };
  });
}

export interface HostCapabilities {
  virtType: 'kvm' | 'qemu';
  uefi: boolean;
  summary: string;
}

/** UEFI is available when libvirt offers the `efi` firmware or names a loader binary (OVMF). */
export function uefiOffered(domainCapabilities: string): boolean {
  const os = childElement(childElement(parseXml(domainCapabilities, 'domain capabilities'), 'domainCapabilities'), 'os');
  const firmware = childElements(os, 'enum').find((element) => attributeOf(element, 'name') === 'firmware');
  const offersEfi = childElements(firmware, 'value').some((value) => textOf(value) === 'efi');
  const loaders = childElements(childElement(os, 'loader'), 'value').filter((value) => (textOf(value) ?? '') !== '');
  return offersEfi || loaders.length > 0;
}

export function readCapabilities(context: SetupContext): Promise<SetupResult<HostCapabilities>> {
  return onFreshConnection(context, async (api) => {
    const virtType = offeredVirtType(await api.connectGetDomainCapabilities({ signal: context.signal }));
    const uefi = uefiOffered(await api.connectGetDomainCapabilities({ virttype: virtType, signal: context.signal }));
    const runs = virtType === 'kvm' ? 'KVM (hardware virtualisation)' : 'software emulation (qemu: no usable /dev/kvm; slow)';
    const firmware = uefi
      ? 'UEFI guests (OVMF found)'
      : 'no UEFI firmware: install ovmf (Debian/Ubuntu) or edk2-ovmf (Fedora/RHEL), or use only firmware: bios images';
    return { virtType, uefi, summary: `Guests run under ${runs}; ${firmware}.` };
  });
}

/** The health check the monitor runs, on the candidate. */
export async function checkCandidate(context: SetupContext): Promise<SetupResult<{ target: Target }>> {
  const target = await probeHost({ backend: context.backend, host: context.host, logger: context.logger, signal: context.signal });
  if (target.ready) return { ok: true, target };
  const reason = target.reason as CheckReason;
  return { ok: false, target, failure: { reason, message: target.message, fix: fixFor(reason, context) } };
}
