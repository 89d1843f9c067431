// A scripted libvirtd on a unix socket, for tests that go through the real SSH forward (the
// in-process ssh2 server of ssh-harness.ts forwards to it). It answers the handshake and the
// health check's procedures with plausible values, can answer any procedure with a libvirt error,
// and can hold a procedure's replies until released (a hung daemon, a dial that takes a while).
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { encodeFrame, FrameDecoder, type Packet } from '@/server/libvirt/framing';
import { MessageStatus, MessageType, remoteError } from '@/server/libvirt/net-protocol';
import { procedureName, procedures, remoteHeader, type ProcedureName } from '@/server/libvirt/protocol';
import { decodeXdr, encodeXdr } from '@/server/libvirt/xdr';
import type { Resources } from './ssh-harness';

export interface LibvirtErrorReply {
  error: { code: number; message: string };
}

type Answer = (args: unknown) => unknown;

const uuid = Buffer.alloc(16, 7);

const defaultAnswers: Partial<Record<ProcedureName, Answer>> = {
  authList: () => ({ types: [0] }),
  connectOpen: () => undefined,
  connectClose: () => undefined,
  connectGetLibVersion: () => ({ lib_ver: 9_000_000 }),
  connectGetHostname: () => ({ hostname: 'fake-hv' }),
  connectGetDomainCapabilities: () => ({ capabilities: '<domainCapabilities><domain>qemu</domain><arch>x86_64</arch></domainCapabilities>' }),
  domainLookupByName: (args) => ({ dom: { name: (args as { name: string }).name, uuid, id: 1 } }),
  domainCreate: () => undefined,
  storagePoolLookupByName: (args) => ({ pool: { name: (args as { name: string }).name, uuid } }),
  storagePoolGetInfo: () => ({ state: 2, capacity: 100 * 1024 ** 3, allocation: 40 * 1024 ** 3, available: 60 * 1024 ** 3 }),
};

export class FakeLibvirtd {
  readonly path: string;
  /** Every connection accepted, in order. */
  readonly connections: Socket[] = [];
  /** Procedure names received, in order, across connections. */
  readonly calls: string[] = [];
  private readonly answers: Partial<Record<ProcedureName, Answer | LibvirtErrorReply>> = {};
  private readonly held = new Set<string>();
  private heldReplies: Array<() => void> = [];
  private callWaiters: Array<{ name: string; resolve: () => void }> = [];

  constructor(dir: string) {
    this.path = join(dir, 'libvirt-sock');
  }

  /** Answer `name` with `value` (a function of the decoded args) or a libvirt error. */
  answer(name: ProcedureName, value: Answer | LibvirtErrorReply): void {
    this.answers[name] = value;
  }

  /** Queue replies to `name` until release(). */
  hold(name: ProcedureName): void {
    this.held.add(name);
  }

  /** Sends every held reply and stops holding. */
  release(): void {
    this.held.clear();
    const replies = this.heldReplies;
    this.heldReplies = [];
    for (const reply of replies) reply();
  }

  /** Resolves once a call of `name` has arrived (at once if one already has). */
  received(name: string): Promise<void> {
    if (this.calls.includes(name)) return Promise.resolve();
    return new Promise((resolve) => this.callWaiters.push({ name, resolve }));
  }

  count(name: string): number {
    return this.calls.filter((call) => call === name).length;
  }

  serve(socket: Socket): void {
    this.connections.push(socket);
    socket.on('error', () => {});
    const decoder = new FrameDecoder();
    socket.on('data', (chunk: Buffer) => {
      for (const packet of decoder.push(chunk)) this.onPacket(socket, packet);
    });
  }

  private onPacket(socket: Socket, packet: Packet): void {
    const name = procedureName(packet.header.procedure) as ProcedureName;
    this.calls.push(name);
    for (const waiter of this.callWaiters.filter((w) => w.name === name)) waiter.resolve();
    this.callWaiters = this.callWaiters.filter((w) => w.name !== name);
    const reply = () => this.reply(socket, packet, name);
    if (this.held.has(name)) this.heldReplies.push(reply);
    else reply();
  }

  private reply(socket: Socket, packet: Packet, name: ProcedureName): void {
    if (socket.destroyed) return;
    const declaration = procedures[name];
    const answer = this.answers[name] ?? defaultAnswers[name] ?? (() => undefined);
    const header = { procedure: packet.header.procedure, type: MessageType.Reply, serial: packet.header.serial };
    if (typeof answer !== 'function') {
      const payload = encodeXdr(remoteError, {
        code: answer.error.code,
        domain: 10,
        message: answer.error.message,
        level: 2,
        dom: null,
        str1: answer.error.message,
        str2: null,
        str3: null,
        int1: -1,
        int2: -1,
        net: null,
      });
      socket.write(encodeFrame(remoteHeader({ ...header, status: MessageStatus.Error }), payload));
      return;
    }
    const args = decodeXdr(declaration.args as never, packet.payload);
    socket.write(encodeFrame(remoteHeader(header), encodeXdr(declaration.ret as never, answer(args) as never)));
    if (name === 'connectClose') socket.end();
  }
}

export async function startFakeLibvirtd(resources: Resources, dir: string): Promise<FakeLibvirtd> {
  const daemon = new FakeLibvirtd(dir);
  const server = createServer((socket) => daemon.serve(socket));
  await new Promise<void>((resolve) => server.listen(daemon.path, resolve));
  resources.add(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of daemon.connections) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return daemon;
}
