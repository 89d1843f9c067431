// Shared by the rpc-*.test.ts lab tests: our libvirt client over the lab's real sshd (the SSH
// forward of libvirt's unix socket, as the provider dials it), and cleanup of what tests create.
import { afterAll, beforeAll } from 'vitest';
import { type DuplexStream, LibvirtClient, type OpenOptions } from '@/server/libvirt';
import { libvirtSocketDialer } from '@/server/ssh';
import { type Lab, type LabHost, loadLab, virsh } from './harness/lab';

/** Everything these tests create is named with this prefix, so cleanup can find it. */
export const RPC_TEST_PREFIX = 'rpctest-';

export const uniqueName = (what: string): string => `${RPC_TEST_PREFIX}${what}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

/** Reads a console stream to its end in the background: resolves with the error it ended with, or null. */
export async function consoleEnd(stream: DuplexStream): Promise<unknown> {
  try {
    for await (const _chunk of stream.output) void _chunk;
    return null;
  } catch (err) {
    return err;
  }
}

/** The provider's transport: a fresh SSH connection per dial, the libvirt socket forwarded over it. */
export function sshDialer(lab: Lab, options: { host?: LabHost; user?: string } = {}) {
  const host = options.host ?? lab.hosts[0]!;
  return libvirtSocketDialer({
    address: host.address,
    user: options.user ?? lab.user,
    keyFile: lab.sshKeyFile,
    knownHostsFile: lab.knownHostsFile,
    socketPath: lab.socket,
    timeoutMs: 10_000,
  });
}

export function openOverSsh(lab: Lab, options: { host?: LabHost; user?: string } & Partial<Omit<OpenOptions, 'dialer'>> = {}): Promise<LibvirtClient> {
  return LibvirtClient.open({ timeoutMs: 20_000, ...options, dialer: sshDialer(lab, options) });
}

export interface SshClientSuite {
  lab: Lab;
  libvirt: LibvirtClient;
}

/** A test file's client over the lab's sshd (lab1, the lab user): opened before its tests, closed after. */
export function sshClientSuite(): SshClientSuite {
  const suite = {} as SshClientSuite;
  beforeAll(async () => {
    suite.lab = loadLab();
    suite.libvirt = await openOverSsh(suite.lab);
  });
  afterAll(async () => {
    await suite.libvirt?.close();
  });
  return suite;
}

/** libvirt's version number from `virsh version` ("Using library: libvirt 9.0.0" -> 9000000). */
export async function virshLibVersion(): Promise<number> {
  const out = await virsh(['version']);
  const match = /Using library: libvirt (\d+)\.(\d+)\.(\d+)/.exec(out);
  if (!match) throw new Error(`cannot read the library version from virsh version: ${out}`);
  const [major, minor, micro] = match.slice(1).map(Number) as [number, number, number];
  return major * 1_000_000 + minor * 1_000 + micro;
}

/** Removes every domain and volume (in `pool`) whose name starts with the test prefix. */
export async function removeRpcTestLeftovers(pool: string): Promise<void> {
  const domains = (await virsh(['list', '--all', '--name'])).split('\n').map((s) => s.trim());
  for (const name of domains.filter((n) => n.startsWith(RPC_TEST_PREFIX))) {
    await virsh(['destroy', name]).catch(() => undefined);
    await virsh(['undefine', '--nvram', name]).catch(() => virsh(['undefine', name]).catch(() => undefined));
  }
  const volumes = (await virsh(['vol-list', pool])).split('\n').map((line) => line.trim().split(/\s+/)[0] ?? '');
  for (const name of volumes.filter((n) => n.startsWith(RPC_TEST_PREFIX))) {
    await virsh(['vol-delete', '--pool', pool, name]).catch(() => undefined);
  }
}
