// The kvm2 provider's settings: the validated `kvm2:` block with every default applied
// (withDefaults), host selection by placement.zone (host), and the checks New makes at startup.
import { statSync } from 'node:fs';
import type { Kvm2Entry } from '@/server/providers/config';
import type { Firmware, ImageFormat, MachineType, VirtType } from '@/server/providers/config-kvm2';
import { ErrPermanent } from '@/server/providers/errors';
import type { PlacementPolicy } from '@/server/providers/host-capacity';
import { parseSshAddress, type SshEndpoint } from '@/server/ssh/address';
import { type KeyFileModeProblem, keyFileModeProblem, octalMode } from '@/server/ssh/key-file-mode';
import { bindOnce, type Logger } from '@/server/telemetry/logger';

/** `detect`: virtType was not configured; read it from the host's capabilities, else `kvm`. */
export type VirtTypeSetting = VirtType | 'detect';

export const kvm2Defaults = {
  insecureIgnoreHostKey: false,
  diskSizeGb: 10,
  installGuestAgent: true,
  socket: '/var/run/libvirt/libvirt-sock',
  pool: 'default',
  format: 'qcow2' as ImageFormat,
  firmware: 'uefi' as Firmware,
  virtType: 'detect' as VirtTypeSetting,
  placementPolicy: 'spread' as PlacementPolicy,
} as const;

/** What `detect` falls back to when the host's capabilities cannot settle it. */
export const fallbackVirtType: VirtType = 'kvm';

/**
 * The virtualisation type to define domains with: the configured one, or for `detect` kvm when
 * libvirt offers it, else qemu when that is offered, else the fallback. `offered` comes from
 * offeredDomainTypes(ConnectGetCapabilities); undefined when it could not be read.
 */
export function resolveVirtType(setting: VirtTypeSetting, offered: readonly string[] | undefined): VirtType {
  if (setting !== 'detect') return setting;
  if (offered?.includes('kvm')) return 'kvm';
  if (offered?.includes('qemu')) return 'qemu';
  return fallbackVirtType;
}

export interface Kvm2Image {
  url: string;
  /** lower-case hex, when configured */
  sha256: string | undefined;
  format: ImageFormat;
  firmware: Firmware;
}

export interface Kvm2Host {
  name: string;
  /** as configured, `host:port` */
  address: string;
  endpoint: SshEndpoint;
  user: string;
  socket: string;
  pool: string;
  bridge: string;
  virtType: VirtTypeSetting;
}

export interface Kvm2Settings {
  /** the provider entry's name (part of base image volume names) */
  name: string;
  sshKeyFile: string;
  knownHostsFile: string | undefined;
  insecureIgnoreHostKey: boolean;
  diskSizeGb: number;
  vendorData: string | undefined;
  installGuestAgent: boolean;
  images: ReadonlyMap<string, Kvm2Image>;
  machineTypes: ReadonlyMap<string, MachineType>;
  hosts: readonly Kvm2Host[];
  /** how the control plane picks a host for a Proxy without placement.zone */
  placementPolicy: PlacementPolicy;
}

/** A new settings object with every default applied; the loaded entry is never modified. */
export function withDefaults(entry: Kvm2Entry): Kvm2Settings {
  const block = entry.kvm2;
  const images = Object.entries(block.images ?? {}).map(([key, image]): [string, Kvm2Image] => [
    key,
    {
      url: image.url,
      sha256: image.sha256?.toLowerCase(),
      format: image.format ?? kvm2Defaults.format,
      firmware: image.firmware ?? kvm2Defaults.firmware,
    },
  ]);
  const machineTypes = Object.entries(block.machineTypes).map(([key, type]): [string, MachineType] => [key, { vcpus: type.vcpus, memoryMiB: type.memoryMiB }]);
  return {
    name: entry.name,
    sshKeyFile: block.sshKeyFile,
    knownHostsFile: block.knownHostsFile,
    insecureIgnoreHostKey: block.insecureIgnoreHostKey ?? kvm2Defaults.insecureIgnoreHostKey,
    diskSizeGb: block.diskSizeGb ?? kvm2Defaults.diskSizeGb,
    vendorData: block.vendorData,
    installGuestAgent: block.installGuestAgent ?? kvm2Defaults.installGuestAgent,
    images: new Map(images),
    machineTypes: new Map(machineTypes),
    hosts: block.hosts.map((host) => ({
      name: host.name,
      address: host.address,
      endpoint: parseSshAddress(host.address),
      user: host.user,
      socket: host.socket ?? kvm2Defaults.socket,
      pool: host.pool ?? kvm2Defaults.pool,
      bridge: host.bridge,
      virtType: host.virtType ?? kvm2Defaults.virtType,
    })),
    placementPolicy: block.placementPolicy ?? kvm2Defaults.placementPolicy,
  };
}

/**
 * The host placement.zone selects. The zone may be omitted only when exactly one host is
 * configured. Unknown or missing zones are permanent: retrying cannot fix the spec.
 */
export function host(settings: Kvm2Settings, zone: string | undefined): Kvm2Host {
  if (zone === undefined || zone === '') {
    const [only] = settings.hosts;
    if (settings.hosts.length === 1 && only) return only;
    throw new ErrPermanent('placement.zone is required when kvm2.hosts lists more than one host');
  }
  const found = settings.hosts.find((candidate) => candidate.name === zone);
  if (!found) throw new ErrPermanent(`placement.zone ${JSON.stringify(zone)} is not in kvm2.hosts`);
  return found;
}

const keyModeWarnings: Record<KeyFileModeProblem, string> = {
  'readable-by-others': "WARNING: kvm2 sshKeyFile is readable by group or others; make it 0600, owned by the server's user (OpenSSH refuses such a key)",
  'world-writable': 'WARNING: kvm2 sshKeyFile is writable by every user; calls to this provider are refused until it is not (chmod 600)',
};

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode;
  } catch {
    return undefined;
  }
}

/** The configured host of that name, or undefined (a providerID naming a host since removed). */
export function configuredHost(settings: Kvm2Settings, name: string): Kvm2Host | undefined {
  return settings.hosts.find((candidate) => candidate.name === name);
}

export function machineType(settings: Kvm2Settings, key: string | undefined): MachineType {
  // A request that bypassed the API schema must not read `placement.machineType undefined ...`.
  if (key === undefined || key === '') throw new ErrPermanent('placement.machineType is required');
  const found = settings.machineTypes.get(key);
  if (!found) throw new ErrPermanent(`placement.machineType ${JSON.stringify(key)} is not in kvm2.machineTypes`);
  return found;
}

/**
 * What New checks: the key and known_hosts files exist, and the key file is private. A missing one
 * is not fatal (the Secret may land later; calls fail transiently until then), only a `WARNING:`
 * line, as is switching host-key verification off or a key file others can read (OpenSSH's
 * "permissions are too open"); a world-writable key file is refused at every dial. Returns the
 * warnings it logged.
 */
export function startupWarnings(settings: Kvm2Settings, options: { log: Logger; fileMode?: (path: string) => number | undefined }): string[] {
  const fileMode = options.fileMode ?? modeOf;
  const warnings: { message: string; fields: Record<string, string> }[] = [];
  const keyMode = fileMode(settings.sshKeyFile);
  if (keyMode === undefined) {
    warnings.push({
      message: 'WARNING: kvm2 sshKeyFile does not exist; calls to this provider fail transiently until it does',
      fields: { path: settings.sshKeyFile },
    });
  } else {
    const problem = keyFileModeProblem(keyMode);
    if (problem) warnings.push({ message: keyModeWarnings[problem], fields: { path: settings.sshKeyFile, mode: octalMode(keyMode) } });
  }
  if (settings.insecureIgnoreHostKey) {
    warnings.push({
      message: 'WARNING: kvm2 insecureIgnoreHostKey is on; host keys are not verified, so a man in the middle could pose as a hypervisor',
      fields: {},
    });
  } else if (settings.knownHostsFile !== undefined && fileMode(settings.knownHostsFile) === undefined) {
    warnings.push({
      message: 'WARNING: kvm2 knownHostsFile does not exist; calls to this provider fail transiently until it does',
      fields: { path: settings.knownHostsFile },
    });
  }
  const log = bindOnce(options.log, { provider: settings.name });
  for (const warning of warnings) log.warn(warning.fields, warning.message);
  return warnings.map((warning) => warning.message);
}
