// Looking inside a lab guest through its QEMU guest agent, as root on the hypervisor would:
// `virsh qemu-agent-command` with guest-ping, guest-exec (+ guest-exec-status) and
// guest-network-get-interfaces. The test uses this; the product never does.
import { z } from 'zod';
import { runCommand, virshArgv } from '@/test/lab/harness/lab';
import type { GuestDomain } from './guest-domain';

export class GuestAgentError extends Error {
  readonly code = 'GUEST_AGENT_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuestAgentError';
  }
}

async function agentCommand(domain: GuestDomain, command: object): Promise<unknown> {
  const result = await runCommand([...virshArgv(domain.host), 'qemu-agent-command', domain.name, JSON.stringify(command)], { timeoutMs: 60_000 });
  if (result.exitCode !== 0) throw new GuestAgentError(`qemu-agent-command on ${domain.name} (${domain.host.name}) failed: ${result.stderr.trim()}`);
  return (JSON.parse(result.stdout) as { return: unknown }).return;
}

/** True when the agent in DOMAIN answers guest-ping. */
export async function agentAnswers(domain: GuestDomain): Promise<boolean> {
  try {
    await agentCommand(domain, { execute: 'guest-ping' });
    return true;
  } catch {
    return false;
  }
}

const execStatusSchema = z.object({
  exited: z.boolean(),
  exitcode: z.number().optional(),
  'out-data': z.string().optional(),
  'err-data': z.string().optional(),
});

export interface GuestExecResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
}

const execTimeoutMs = 60_000;

/** Runs ARGV in the guest and waits for it; stdout as raw bytes (the agent carries it in base64). */
export async function guestExec(domain: GuestDomain, argv: [string, ...string[]]): Promise<GuestExecResult> {
  const [path, ...args] = argv;
  const started = await agentCommand(domain, { execute: 'guest-exec', arguments: { path, arg: args, 'capture-output': true } });
  const pid = z.object({ pid: z.number() }).parse(started).pid;
  const deadline = Date.now() + execTimeoutMs;
  for (;;) {
    const status = execStatusSchema.parse(await agentCommand(domain, { execute: 'guest-exec-status', arguments: { pid } }));
    if (status.exited) {
      return {
        exitCode: status.exitcode ?? -1,
        stdout: Buffer.from(status['out-data'] ?? '', 'base64'),
        stderr: Buffer.from(status['err-data'] ?? '', 'base64').toString('utf8'),
      };
    }
    if (Date.now() > deadline) throw new GuestAgentError(`${argv.join(' ')} did not finish in ${domain.name} within ${execTimeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Runs a shell command in the guest; rejects unless it exits 0. */
export async function guestShell(domain: GuestDomain, script: string): Promise<Buffer> {
  const result = await guestExec(domain, ['/bin/sh', '-c', script]);
  if (result.exitCode !== 0) throw new GuestAgentError(`\`${script}\` exited ${result.exitCode} in ${domain.name}: ${result.stderr.trim()}`);
  return result.stdout;
}

const interfacesSchema = z.array(
  z.object({
    name: z.string(),
    'hardware-address': z.string().optional(),
    'ip-addresses': z.array(z.object({ 'ip-address-type': z.string(), 'ip-address': z.string() })).optional(),
  }),
);

/** The guest's own IPv4 addresses outside loopback, as the agent reports them. */
export async function guestIPv4Addresses(domain: GuestDomain): Promise<string[]> {
  const interfaces = interfacesSchema.parse(await agentCommand(domain, { execute: 'guest-network-get-interfaces' }));
  return interfaces
    .filter((iface) => iface.name !== 'lo')
    .flatMap((iface) => iface['ip-addresses'] ?? [])
    .filter((address) => address['ip-address-type'] === 'ipv4')
    .map((address) => address['ip-address']);
}
