// The SSH transport against the lab's real OpenSSH servers: the lab key and hashed known_hosts,
// the libvirt socket forwarded with streamlocal, and the failures a real sshd produces.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dialSsh, dialUnixSocket, HostKeyError, libvirtSocketDialer, SshDialError, type SshDialOptions } from '@/server/ssh';
import { keepaliveClock, runKeepaliveRounds } from '@/test/support/keepalive-rounds';
import { type Lab, type LabHost, loadLab } from './harness/lab';

let lab: Lab;
let scratch: string;
beforeAll(() => {
  lab = loadLab();
  scratch = mkdtempSync(join(tmpdir(), 'kvm2-ssh-lab-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const dialOptions = (host: LabHost, overrides: Partial<SshDialOptions> = {}): SshDialOptions => ({
  address: host.address,
  user: lab.user,
  keyFile: lab.sshKeyFile,
  knownHostsFile: lab.knownHostsFile,
  timeoutMs: 5_000,
  ...overrides,
});

const scratchFile = (name: string, content: string): string => {
  const path = join(scratch, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
};

const remoteProgram = 0x20008086;
const procAuthList = 66;

/** One libvirt AUTH_LIST call, framed by hand: length, then program/version/procedure/type/serial/status. */
function authListCall(serial: number): Buffer {
  const frame = Buffer.alloc(28);
  [28, remoteProgram, 1, procAuthList, 0, serial, 0].forEach((word, i) => frame.writeUInt32BE(word, i * 4));
  return frame;
}

function readFrame(socket: Duplex): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 4 && buffered.length >= buffered.readUInt32BE(0)) {
        socket.off('data', onData);
        resolve(buffered.subarray(0, buffered.readUInt32BE(0)));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('end', () => reject(new Error('libvirtd closed the socket before replying')));
  });
}

const header = (frame: Buffer) => {
  const [program, version, procedure, type, serial, status] = [4, 8, 12, 16, 20, 24].map((at) => frame.readUInt32BE(at));
  return { program, version, procedure, type, serial, status };
};

describe.each([0, 1])('lab host %i over ssh2', (index) => {
  const host = () => {
    const found = lab.hosts[index];
    if (!found) throw new Error(`lab.json lists no host #${index}`);
    return found;
  };

  it('forwards the libvirt socket and gets an AUTH_LIST reply through it', async () => {
    const socket = await libvirtSocketDialer({ ...dialOptions(host()), socketPath: lab.socket }).dial();
    try {
      const reply = readFrame(socket);
      socket.write(authListCall(7));
      const frame = await reply;
      expect(header(frame)).toEqual({ program: remoteProgram, version: 1, procedure: procAuthList, type: 1, serial: 7, status: 0 });
      const authTypes = frame.readUInt32BE(28);
      expect(frame.length).toBe(32 + 4 * authTypes);
    } finally {
      socket.destroy();
    }
  });

  it('keeps a connection alive through real keepalive rounds with OpenSSH', async () => {
    // The keepalive's clock is faked: 50 rounds of 50 ms, past the 2 s reply timeout, each
    // answered by OpenSSH before the next.
    vi.useFakeTimers(keepaliveClock);
    const connection = await dialSsh(dialOptions(host(), { keepaliveIntervalMs: 50, keepaliveTimeoutMs: 2_000 }));
    try {
      await runKeepaliveRounds({ rounds: 50, intervalMs: 50 });
      vi.useRealTimers();
      expect(connection.dead).toBeUndefined();
      const socket = await connection.forwardUnixSocket(lab.socket);
      const reply = readFrame(socket);
      socket.write(authListCall(1));
      expect(header(await reply).status).toBe(0);
    } finally {
      vi.useRealTimers();
      connection.kill();
    }
  });

  it('refuses a key the host does not authorise, permanently', async () => {
    const wrongKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const keyFile = scratchFile(`wrong-key-${index}`, wrongKey);
    const err = await dialSsh(dialOptions(host(), { keyFile })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshDialError);
    expect(err).toMatchObject({ code: 'SSH_AUTH_FAILED', stage: 'ssh', permanent: true });
  });

  it('refuses a host that known_hosts does not list', async () => {
    const knownHostsFile = scratchFile(`other-host-${index}`, `elsewhere.example ${ssh2.utils.generateKeyPairSync('ed25519').public}\n`);
    const err = await dialSsh(dialOptions(host(), { knownHostsFile })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostKeyError);
    expect(err).toMatchObject({ code: 'SSH_HOST_KEY_UNKNOWN', reason: 'unknown', stage: 'ssh', permanent: true });
  });

  it('refuses a host whose known_hosts key differs', async () => {
    const name = host().port === 22 ? host().host : `[${host().host}]:${host().port}`;
    const fake = ssh2.utils.generateKeyPairSync('ed25519').public.split(' ').slice(0, 2).join(' ');
    const knownHostsFile = scratchFile(`changed-${index}`, `${name} ${fake}\n`);
    const err = await dialSsh(dialOptions(host(), { knownHostsFile })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SSH_HOST_KEY_CHANGED', reason: 'changed', permanent: true });
  });

  it('reports a socket sshd cannot open as a transient socket-stage error', async () => {
    const err = await dialUnixSocket({ ...dialOptions(host()), socketPath: '/var/run/libvirt/kvm2-no-such-sock' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SSH_SOCKET_REFUSED', stage: 'socket', permanent: false });
  });
});
