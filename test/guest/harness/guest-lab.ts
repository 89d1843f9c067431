// The lab as the real-guest tests see it: the lab itself (harness/lab.ts), its guest variant
// (.lab/guest.json, written by test/lab/scripts/guest-network.sh), the guest image (built or found
// in its cache by test/lab/guest-image/build.sh) and a providers config that offers that image.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { type Lab, type LabHost, LabNotUpError, loadLab, runCommand, virsh } from '@/test/lab/harness/lab';

const guestJsonSchema = z.object({
  rootAddress: z.string(),
  imageServerVmUrl: z.string(),
  guestImageBuilder: z.string(),
});
export type GuestVariant = z.infer<typeof guestJsonSchema>;

export interface GuestLab extends Lab {
  guest: GuestVariant;
}

export function loadGuestLab(): GuestLab {
  const lab = loadLab();
  const path = join(lab.dir, 'guest.json');
  if (!existsSync(path)) throw new LabNotUpError(`${path} does not exist (the lab predates its guest variant)`);
  return { ...lab, guest: guestJsonSchema.parse(JSON.parse(readFileSync(path, 'utf8'))) };
}

/** The lab host named NAME (lab1: Debian 12's libvirt 9.0, lab2: Debian 13's 11.3). */
export function guestHost(lab: Lab, name: string): LabHost {
  const host = lab.hosts.find((candidate) => candidate.name === name);
  if (!host) throw new LabNotUpError(`lab.json lists no host ${name}`);
  return host;
}

const buildJsonSchema = z.object({
  key: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number(),
  kernel: z.string(),
  seconds: z.object({ rootfs: z.number(), disk: z.number(), total: z.number() }),
});

export interface GuestImage {
  /** the cached qcow2 */
  path: string;
  sha256: string;
  bytes: number;
  /** served by the lab's image server (Content-Length) */
  url: string;
  /** how long the build took when it ran (cold), from its build.json */
  coldBuildSeconds: number;
  /** how long this call took: the build, or the cache lookup */
  thisCallSeconds: number;
  built: boolean;
}

export class GuestImageBuildError extends Error {
  readonly code = 'GUEST_IMAGE_BUILD_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuestImageBuildError';
  }
}

/** Builds the guest image (minutes, once per version of the build scripts) or finds it cached. */
export async function ensureGuestImage(lab: GuestLab): Promise<GuestImage> {
  const started = performance.now();
  const result = await runCommand(['bash', lab.guest.guestImageBuilder], { timeoutMs: 1_500_000 });
  const thisCallSeconds = (performance.now() - started) / 1000;
  if (result.exitCode !== 0) throw new GuestImageBuildError(`guest-image/build.sh failed (exit ${result.exitCode}):\n${result.stderr.slice(-4000)}`);
  const path = result.stdout.trim();
  const build = buildJsonSchema.parse(JSON.parse(readFileSync(join(path, '..', 'build.json'), 'utf8')));
  return {
    path,
    sha256: build.sha256,
    bytes: build.bytes,
    url: `${lab.imageServer.url}/images/guest.qcow2`,
    coldBuildSeconds: build.seconds.total,
    thisCallSeconds,
    built: result.stderr.includes('] built '),
  };
}

/** The catalogue keys the guest config offers; the sha256 prefix makes a rebuilt image a new key. */
export function guestImageKeys(image: GuestImage): { uefi: string; bios: string } {
  const tag = image.sha256.slice(0, 12);
  return { uefi: `guest-${tag}`, bios: `guest-bios-${tag}` };
}

export const guestProviders = { withAgent: 'guest', withoutAgent: 'guest-noagent' } as const;
export const guestMachineType = 'guest';

function providerYaml(options: { lab: GuestLab; image: GuestImage; name: string; installGuestAgent: boolean }): string {
  const { lab, image, name, installGuestAgent } = options;
  const keys = guestImageKeys(image);
  return `- name: ${name}
  type: kvm2
  kvm2:
    sshKeyFile: ${lab.sshKeyFile}
    knownHostsFile: ${lab.knownHostsFile}
    diskSizeGb: 2
    installGuestAgent: ${installGuestAgent}
    images:
      ${keys.uefi}:
        url: ${image.url}
        sha256: ${image.sha256}
      ${keys.bios}:
        url: ${image.url}
        sha256: ${image.sha256}
        firmware: bios
    machineTypes:
      # Software emulation (multi-threaded TCG): two vCPUs boot in ~70 s where one takes ~90 s on
      # the 2-core machine, and the app and the test are idle meanwhile. 1 GiB is what cloud-init
      # (Python) and Squid start comfortably in.
      ${guestMachineType}: {vcpus: 2, memoryMiB: 1024}
    hosts:
${lab.hosts.map((host) => hostYaml(lab, host)).join('')}`;
}

const hostYaml = (lab: GuestLab, host: LabHost) => `      - name: ${host.name}
        address: "${host.address}"
        user: ${lab.user}
        bridge: ${lab.bridge}
        pool: ${host.pool.name}
        virtType: qemu
`;

/** Writes the providers config of the guest tests into DIR and returns its path. */
export function writeGuestProvidersConfig(options: { lab: GuestLab; image: GuestImage; dir: string }): string {
  const { lab, image } = options;
  const text = [
    '# Providers config of the real-guest tests (test/guest): both lab hosts with the guest image.',
    providerYaml({ lab, image, name: guestProviders.withAgent, installGuestAgent: true }),
    providerYaml({ lab, image, name: guestProviders.withoutAgent, installGuestAgent: false }),
  ].join('\n');
  const path = join(options.dir, 'providers.yaml');
  writeFileSync(path, text);
  return path;
}

/** Volumes of HOST's pool whose name starts with PREFIX. */
export async function poolVolumes(host: LabHost, prefix: string): Promise<string[]> {
  const listing = await virsh(['vol-list', '--pool', host.pool.name], host);
  return listing
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name.startsWith(prefix));
}

/** The cached base images of the guest providers on every host: they outlive Proxies by design, not test runs. */
export async function removeGuestBaseImages(lab: Lab): Promise<void> {
  for (const host of lab.hosts) {
    for (const provider of Object.values(guestProviders)) {
      // Marker first, as the spec's manual eviction does.
      const volumes = (await poolVolumes(host, `base-${provider}-`)).sort((a, b) => Number(b.endsWith('.sha256')) - Number(a.endsWith('.sha256')));
      for (const volume of volumes) await virsh(['vol-delete', '--pool', host.pool.name, volume], host);
    }
  }
}
