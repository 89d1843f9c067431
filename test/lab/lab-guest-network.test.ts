// The lab's guest variant (scripts/guest-network.sh), on each host: a VM on the host's bridge is
// reachable from the root namespace, where the app probes it, and reaches the image server on the
// VM link, and nothing else (not the other host). A stand-in "VM" is a namespace plugged into the
// bridge like a VM's tap, at an address outside the DHCP range.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Lab, type LabHost, loadLab, nsExec, runCommand } from './harness/lab';

const vmNetns = 'kvm2lab-vmprobe'; // removed by down.sh too, should this test die half way
const vmPort = 3128;

interface GuestVariant {
  imageServerVmUrl: string;
  hosts: Record<string, { vmNetwork: string; vmGateway: string }>;
}

async function plugStandInVm(lab: Lab, host: LabHost, vmAddress: string, gateway: string): Promise<void> {
  await runCommand(['ip', 'netns', 'delete', vmNetns]);
  await runCommand(['ip', 'netns', 'add', vmNetns]);
  await nsExec(host.netns, ['ip', 'link', 'add', 'kvm2lab-vmp', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', vmNetns]);
  await nsExec(host.netns, ['ip', 'link', 'set', 'kvm2lab-vmp', 'master', lab.bridge, 'up']);
  await nsExec(vmNetns, ['ip', 'addr', 'add', `${vmAddress}/24`, 'dev', 'eth0']);
  await nsExec(vmNetns, ['ip', 'link', 'set', 'eth0', 'up']);
  await nsExec(vmNetns, ['ip', 'link', 'set', 'lo', 'up']);
  await nsExec(vmNetns, ['ip', 'route', 'add', 'default', 'via', gateway]);
}

function readGreeting(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: 5_000 });
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('timeout', () => socket.destroy(new Error(`no answer from ${host}:${port}`)));
    socket.on('error', reject);
  });
}

describe.each([0, 1])('the guest variant of the lab on host %i', (index) => {
  let lab: Lab;
  let host: LabHost;
  let other: LabHost;
  let guest: GuestVariant;
  let vmAddress: string;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    lab = loadLab();
    host = lab.hosts[index] as LabHost;
    other = lab.hosts[1 - index] as LabHost;
    guest = JSON.parse(readFileSync(join(lab.dir, 'guest.json'), 'utf8')) as GuestVariant;
    const network = guest.hosts[host.name];
    if (!network) throw new Error(`guest.json names no VM network for ${host.name}`);
    vmAddress = network.vmNetwork.replace(/\.0\/24$/, '.254');
    await plugStandInVm(lab, host, vmAddress, network.vmGateway);
    const script = `require('node:net').createServer((s) => s.end('from the vm\\n')).listen(${vmPort}, '${vmAddress}', () => console.log('listening'))`;
    server = spawn('ip', ['netns', 'exec', vmNetns, process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      server?.stdout?.once('data', () => resolve());
      server?.once('exit', (code) => reject(new Error(`stand-in VM server exited ${code}`)));
    });
  });

  afterAll(async () => {
    server?.kill();
    await runCommand(['ip', 'netns', 'delete', vmNetns]);
  });

  it("routes the host's VM network from the root namespace through the host's namespace", async () => {
    const route = (await runCommand(['ip', 'route', 'show', host.vmNetwork])).stdout;
    expect(route).toContain(`via ${host.host} dev`);
    expect(await readGreeting(vmAddress, vmPort)).toBe('from the vm\n');
  });

  it('lets a VM fetch from the image server on the VM link, as Squid does for a probe', async () => {
    const answer = await nsExec(vmNetns, ['curl', '-fsS', '--max-time', '5', `${guest.imageServerVmUrl}/probe`]);
    expect(answer).toBe('probe target\n');
  });

  it('gives a VM no way to the other host: the host namespace has no default route', async () => {
    expect(await nsExec(host.netns, ['ip', 'route', 'show', 'default'])).toBe('');
    // curl's exit 7 is "could not connect"; an sshd reached would answer (exit 1, HTTP/0.9 refused).
    const attempt = await runCommand(['ip', 'netns', 'exec', vmNetns, 'curl', '-sS', '--max-time', '5', `http://${other.host}:${other.port}/`]);
    expect(attempt.exitCode, attempt.stderr).toBe(7);
  });
});
