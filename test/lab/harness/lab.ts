// Test-side view of the lab that `bash test/lab/up.sh` brings up: reads .lab/lab.json and offers
// the few commands tests need (root virsh on either host, a command inside a lab namespace,
// image-server stats). The lab has two hypervisors, lab1 (libvirt 9.0) and lab2 (libvirt 11.3),
// each with its own libvirtd in namespaces of its own; root reaches each one's socket through
// /proc/<host init>/root (hosts[].libvirtSocketFromRoot). The one-libvirtd fields (pool, socket,
// hypervisorNetns, libvirtdPidFile) are lab1's, and virsh() without a host means lab1.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

export interface LabPool {
  name: string;
  path: string; // as the host sees it (what libvirt answers)
  pathFromRoot: string; // the same directory from the root namespace
}

export interface LabHost {
  name: string;
  address: string; // "host:port", as in hosts[].address of the providers config
  host: string;
  port: number;
  netns: string;
  hostname: string; // its own UTS namespace's ("kvm2lab-lab1"): what ConnectGetHostname answers
  libvirtVersion: string; // the daemon's, e.g. "9.0.0" on lab1 and "11.3.0" on lab2
  initPidFile: string; // the host's namespace init: killing it ends the host
  rootPath: string; // the host's / from the root namespace
  libvirtSocketFromRoot: string;
  pool: LabPool;
  inactivePool: LabPool;
  bridgeAddress: string;
  vmNetwork: string;
  dhcpLeasesFromRoot: string;
  logsDir: string;
}

export interface Lab {
  dir: string;
  sshKeyFile: string;
  knownHostsFile: string;
  user: string;
  nonLibvirtUser: string;
  socket: string;
  hosts: LabHost[];
  hypervisorNetns: string;
  pool: { name: string; path: string };
  inactivePool: { name: string; path: string };
  bridge: string;
  libvirtdPidFile: string;
  imageServer: { url: string; image: { path: string; sha256: string; size: number } };
  providersConfig: string;
  /** the lab's PostgreSQL (postgres://user:password@127.0.0.1:port/kvm2), for the replica tests */
  postgresUrl: string;
}

const poolSchema = z.object({ name: z.string(), path: z.string() });
const hostPoolSchema = poolSchema.extend({ pathFromRoot: z.string() });
const labSchema = z.object({
  dir: z.string(),
  sshKeyFile: z.string(),
  knownHostsFile: z.string(),
  user: z.string(),
  nonLibvirtUser: z.string(),
  socket: z.string(),
  hosts: z.array(
    z.object({
      name: z.string(),
      address: z.string(),
      host: z.string(),
      port: z.number(),
      netns: z.string(),
      hostname: z.string(),
      libvirtVersion: z.string(),
      initPidFile: z.string(),
      rootPath: z.string(),
      libvirtSocketFromRoot: z.string(),
      pool: hostPoolSchema,
      inactivePool: hostPoolSchema,
      bridgeAddress: z.string(),
      vmNetwork: z.string(),
      dhcpLeasesFromRoot: z.string(),
      logsDir: z.string(),
    }),
  ),
  hypervisorNetns: z.string(),
  pool: poolSchema,
  inactivePool: poolSchema,
  bridge: z.string(),
  libvirtdPidFile: z.string(),
  imageServer: z.object({
    url: z.string(),
    image: z.object({ path: z.string(), sha256: z.string(), size: z.number() }),
  }),
  providersConfig: z.string(),
  postgresUrl: z.string(),
});

export const labJsonPath = fileURLToPath(new URL('../../../.lab/lab.json', import.meta.url));

export class LabNotUpError extends Error {
  readonly code = 'LAB_NOT_UP';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the lab is not up (${reason}); run \`bash test/lab/up.sh\` as root`, options);
    this.name = 'LabNotUpError';
  }
}

function processRuns(pidFile: string): boolean {
  try {
    const pid = readFileSync(pidFile, 'utf8').trim();
    return /^\d+$/.test(pid) && existsSync(`/proc/${pid}`);
  } catch {
    return false;
  }
}

/** The lab as up.sh described it. Throws LabNotUpError when lab.json is missing or libvirtd is not running. */
export function loadLab(): Lab {
  if (!existsSync(labJsonPath)) throw new LabNotUpError(`${labJsonPath} does not exist`);
  let lab: Lab;
  try {
    lab = labSchema.parse(JSON.parse(readFileSync(labJsonPath, 'utf8')));
  } catch (cause) {
    throw new LabNotUpError(`${labJsonPath} does not parse`, { cause });
  }
  if (!processRuns(lab.libvirtdPidFile)) throw new LabNotUpError(`libvirtd (${lab.libvirtdPidFile}) is not running`);
  return lab;
}

/** Waits for another session's up.sh to write lab.json, then loads it. */
export async function waitForLab(timeoutMs = 600_000): Promise<Lab> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return loadLab();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

export class LabCommandError extends Error {
  readonly code = 'LAB_COMMAND_FAILED';
  constructor(
    readonly argv: string[],
    readonly stderr: string,
    readonly exitCode: number | null,
    options?: { cause?: unknown },
  ) {
    super(`${argv.join(' ')} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim()}`, options);
    this.name = 'LabCommandError';
  }
}

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Runs argv and resolves with its output and exit code, whatever the code. */
export function runCommand(argv: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  const [file, ...args] = argv;
  if (file === undefined) return Promise.reject(new TypeError('runCommand needs a command'));
  return new Promise((resolve, reject) => {
    // stdin is closed at once: a command that prompts (libssh for an unknown host key) reads EOF
    // and fails instead of waiting for an answer nobody gives.
    const child = execFile(
      file,
      args,
      {
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
        env: options.env ?? process.env,
      },
      (err, stdout, stderr) => {
        const exitCode = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        if (exitCode === null) reject(new LabCommandError(argv, stderr, null, { cause: err }));
        else resolve({ stdout, stderr, exitCode });
      },
    );
    child.stdin?.end();
  });
}

async function runChecked(argv: string[]): Promise<string> {
  const result = await runCommand(argv);
  if (result.exitCode !== 0) throw new LabCommandError(argv, result.stderr, result.exitCode);
  return result.stdout;
}

/** The lab host named NAME (or given), lab1 when none is. */
export function labHost(host?: LabHost | string): LabHost {
  if (typeof host === 'object') return host;
  const name = host ?? 'lab1';
  const found = loadLab().hosts.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`the lab has no host ${name}`);
  return found;
}

/**
 * The pid (in the root namespace) of DAEMON (libvirtd, virtlogd, sshd, ...) of HOST: its pid file
 * inside the host names its pid in the host's own pid namespace, mapped here through NSpid.
 */
export function hostDaemonPid(host: LabHost, daemon: string): number {
  const inHost = readFileSync(`${host.rootPath}/run/kvm2lab/${daemon}.pid`, 'utf8').trim();
  const init = readFileSync(host.initPidFile, 'utf8').trim();
  const pidNamespace = readlinkSync(`/proc/${init}/ns/pid`);
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readlinkSync(`/proc/${entry}/ns/pid`) !== pidNamespace) continue;
      const nspid = /^NSpid:\s+(.+)$/m
        .exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]
        ?.trim()
        .split(/\s+/);
      if (nspid?.at(-1) === inHost) return Number(entry);
    } catch {
      // exited meanwhile
    }
  }
  throw new Error(`${daemon} of ${host.name} (pid ${inHost} there) is not running`);
}

/** root's virsh argv for HOST's own libvirtd (no SSH, no polkit: root on its socket). */
export function virshArgv(host?: LabHost | string): string[] {
  return ['virsh', '-q', '-c', `qemu:///system?socket=${labHost(host).libvirtSocketFromRoot}`];
}

/** root's `virsh ARGS` on HOST's libvirtd (lab1 by default); resolves with stdout, rejects with LabCommandError. */
export function virsh(args: string[], host?: LabHost | string): Promise<string> {
  return runChecked([...virshArgv(host), ...args]);
}

/** Volume names in POOL on HOST's libvirtd (lab1 by default; each host has its own pools), as root's virsh lists them. */
export async function poolVolumes(pool: string, host?: LabHost | string): Promise<string[]> {
  const listing = await virsh(['vol-list', '--pool', pool], host);
  return listing
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');
}

/** ARGV inside network namespace NETNS; resolves with stdout, rejects with LabCommandError. */
export function nsExec(netns: string, argv: string[]): Promise<string> {
  return runChecked(['ip', 'netns', 'exec', netns, ...argv]);
}

/**
 * A libvirt URI reaching the lab's libvirtd over SSH as USER through HOST, with the lab's key and
 * its hashed known_hosts. `qemu+libssh` because the `qemu+ssh` transport runs OpenSSH without
 * passing known_hosts on, while libssh verifies against the file given.
 */
/** What every kvm2 providers entry on the lab shares: its SSH identity, the lab image and one small machine type. */
export function labKvm2Basics(lab: Lab) {
  return {
    sshKeyFile: lab.sshKeyFile,
    knownHostsFile: lab.knownHostsFile,
    images: { lab: { url: `${lab.imageServer.url}/images/lab.qcow2`, sha256: lab.imageServer.image.sha256 } },
    machineTypes: { small: { vcpus: 1, memoryMiB: 256 } },
  };
}

export function labLibvirtUri(lab: Lab, host: LabHost, user = lab.user): string {
  const query = new URLSearchParams({
    keyfile: lab.sshKeyFile,
    known_hosts: lab.knownHostsFile,
    known_hosts_verify: 'normal',
    sshauth: 'privkey',
  });
  return `qemu+libssh://${user}@${host.host}:${host.port}/system?${query.toString()}`;
}

/** OpenSSH client options that dial HOST exactly as the provider does (key, known_hosts, strict). */
export function sshArgs(lab: Lab, host: LabHost, user = lab.user): string[] {
  return [
    '-i',
    lab.sshKeyFile,
    '-p',
    String(host.port),
    '-o',
    `UserKnownHostsFile=${lab.knownHostsFile}`,
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'IdentitiesOnly=yes',
    `${user}@${host.host}`,
  ];
}

/** Image-server hit counts: {"<path>": n}, or {"<METHOD> <path>": n} with byMethod. */
export async function imageServerStats(lab: Lab, byMethod = false): Promise<Record<string, number>> {
  const res = await fetch(`${lab.imageServer.url}/stats${byMethod ? '?by=method' : ''}`);
  if (!res.ok) throw new Error(`image server /stats answered ${res.status}`);
  return (await res.json()) as Record<string, number>;
}

export async function resetImageServerStats(lab: Lab): Promise<void> {
  const res = await fetch(`${lab.imageServer.url}/stats/reset`, { method: 'POST' });
  if (res.status !== 204) throw new Error(`image server /stats/reset answered ${res.status}`);
}

/** Removes a domain a test made on HOST (lab1 by default): destroy (if running) and undefine with its NVRAM. */
export async function removeDomain(name: string, host?: LabHost | string): Promise<void> {
  const state = await runCommand([...virshArgv(host), 'domstate', name]);
  if (state.exitCode !== 0) return; // no such domain
  if (state.stdout.trim() !== 'shut off') await virsh(['destroy', name], host).catch(() => undefined);
  // A transient domain (virsh create) is gone once destroyed.
  if ((await runCommand([...virshArgv(host), 'domstate', name])).exitCode !== 0) return;
  await virsh(['undefine', '--nvram', name], host);
}

/** Removes a volume a test made on HOST (lab1 by default), if it exists. */
export async function removeVolume(pool: string, name: string, host?: LabHost | string): Promise<void> {
  const info = await runCommand([...virshArgv(host), 'vol-info', '--pool', pool, name]);
  if (info.exitCode === 0) await virsh(['vol-delete', '--pool', pool, name], host);
}
