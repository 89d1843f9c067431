// The console's two-way stream over a scripted libvirtd (REMOTE_PROC_DOMAIN_OPEN_CONSOLE = 201):
// keystrokes go out as STREAM CONTINUE on the call's serial, output comes back the same way;
// end of output is answered with a finish; finish and abort end it as libvirt expects; a console
// held by another client is ConsoleBusyError; the daemon's stream error and the connection's end
// reach the reader as typed errors; nothing waits forever.
import { describe, expect, it } from 'vitest';
import { LibvirtClient } from '@/server/libvirt/api';
import { RpcConnection } from '@/server/libvirt/client';
import { CallTimeoutError, ConnectionClosedError, ConsoleBusyError, isLibvirtError, LibvirtError, StreamClosedError } from '@/server/libvirt/errors';
import { DomainConsoleFlags } from '@/server/libvirt/flags';
import { encodeFrame, type Packet } from '@/server/libvirt/framing';
import { MessageStatus, MessageType } from '@/server/libvirt/net-protocol';
import { procedures, remoteHeader } from '@/server/libvirt/protocol';
import { decodeXdr } from '@/server/libvirt/xdr';
import { xdrVoid } from '@/server/libvirt/xdr-shapes';
import { FakePeer } from './rpc-fake-peer';
import { nextTurn } from '@/test/support/wait';

const dom = { name: 'web-1', uuid: Buffer.alloc(16, 3), id: 2 };

async function openConsole(options: { flags?: number; early?: Buffer[] } = {}) {
  const peer = new FakePeer();
  const client = new LibvirtClient(new RpcConnection(peer.transport));
  const opening = client.domainOpenConsole({ dom, flags: options.flags });
  const call = await peer.nextPacket();
  for (const chunk of options.early ?? []) peer.stream(call, MessageStatus.Continue, chunk);
  peer.reply(call, xdrVoid, undefined);
  const consoleStream = await opening;
  return { peer, client, call, consoleStream };
}

async function readAll(output: AsyncIterable<Buffer>): Promise<string> {
  let text = '';
  for await (const chunk of output) text += chunk.toString();
  return text;
}

describe('console stream', () => {
  it('opens with the dev name and flags as remote_domain_open_console_args', async () => {
    const { call } = await openConsole({ flags: DomainConsoleFlags.Force | DomainConsoleFlags.Safe });
    expect(call.header.procedure).toBe(201);
    expect(call.header.type).toBe(MessageType.Call);
    expect(decodeXdr(procedures.domainOpenConsole.args, call.payload)).toEqual({ dom, dev_name: null, flags: 3 });
  });

  it('sends keystrokes as STREAM CONTINUE on the call serial and reads output, early output included', async () => {
    const { peer, call, consoleStream } = await openConsole({ early: [Buffer.from('SeaBIOS ')] });
    await consoleStream.send(Buffer.from('root\r'));
    const input = await peer.nextPacket();
    expect(input.header).toMatchObject({ procedure: 201, type: MessageType.Stream, serial: call.header.serial, status: MessageStatus.Continue });
    expect(input.payload.toString()).toBe('root\r');
    peer.stream(call, MessageStatus.Continue, Buffer.from('login: '));
    const reader = consoleStream.output[Symbol.asyncIterator]();
    expect((await reader.next()).value?.toString()).toBe('SeaBIOS ');
    expect((await reader.next()).value?.toString()).toBe('login: ');
  });

  it('keeps output that arrives in the same chunk right behind the REPLY', async () => {
    const peer = new FakePeer();
    const client = new LibvirtClient(new RpcConnection(peer.transport));
    const opening = client.domainOpenConsole({ dom });
    const call = await peer.nextPacket();
    const { serial } = call.header;
    peer.sendRaw(
      Buffer.concat([
        encodeFrame(remoteHeader({ procedure: 201, type: MessageType.Reply, serial })),
        encodeFrame(remoteHeader({ procedure: 201, type: MessageType.Stream, serial, status: MessageStatus.Continue }), Buffer.from('boot')),
      ]),
    );
    const consoleStream = await opening;
    const reader = consoleStream.output[Symbol.asyncIterator]();
    expect((await reader.next()).value?.toString()).toBe('boot');
  });

  it('end of output (the domain stopped) is answered with a finish, and the stream ends cleanly', async () => {
    const { peer, call, consoleStream } = await openConsole();
    peer.stream(call, MessageStatus.Continue, Buffer.from('bye'));
    peer.stream(call, MessageStatus.Continue); // empty: end of output
    const finish = await peer.nextPacket();
    expect(finish.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Ok, serial: call.header.serial });
    peer.stream(call, MessageStatus.Ok);
    expect(await readAll(consoleStream.output)).toBe('bye');
    expect(await consoleStream.ended).toBeNull();
    await expect(consoleStream.send(Buffer.from('x'))).rejects.toBeInstanceOf(StreamClosedError);
  });

  it('finish() sends STREAM OK and resolves on the daemon confirmation', async () => {
    const { peer, call, consoleStream } = await openConsole();
    const finishing = consoleStream.finish();
    const finish = await peer.nextPacket();
    expect(finish.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Ok });
    peer.stream(call, MessageStatus.Continue, Buffer.from('late output'));
    peer.stream(call, MessageStatus.Ok);
    await expect(finishing).resolves.toBeUndefined();
    expect(await readAll(consoleStream.output)).toBe('late output');
  });

  it('finish() gives up with CallTimeoutError when no confirmation comes, keeping the connection', async () => {
    const { client, consoleStream } = await openConsole();
    await expect(consoleStream.finish({ timeoutMs: 20 })).rejects.toBeInstanceOf(CallTimeoutError);
    expect(client.alive).toBe(true);
  });

  it('abort() sends STREAM ERROR, ends the output at once and ignores the daemon answer', async () => {
    const { peer, client, call, consoleStream } = await openConsole();
    consoleStream.abort();
    const abort = await peer.nextPacket();
    expect(abort.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Error, serial: call.header.serial });
    expect(await consoleStream.ended).toBeNull();
    expect(await readAll(consoleStream.output)).toBe('');
    peer.replyError(call, { code: 39, message: 'stream aborted at client request' });
    await nextTurn();
    expect(client.alive).toBe(true);
  });

  it('a STREAM ERROR from the daemon (the console taken over with FORCE) reaches the reader as LibvirtError', async () => {
    const { peer, call, client, consoleStream } = await openConsole();
    peer.replyError(call, { code: 39, message: 'stream had I/O failure', type: MessageType.Stream });
    const err = await readAll(consoleStream.output).catch((e: unknown) => e);
    expect(isLibvirtError(err, 'ErrRPC')).toBe(true);
    expect(await consoleStream.ended).toBe(err);
    expect(client.alive).toBe(true);
  });

  it('a console held by another client is ConsoleBusyError (ErrOperationFailed from the open)', async () => {
    const peer = new FakePeer();
    const client = new LibvirtClient(new RpcConnection(peer.transport));
    const opening = client.domainOpenConsole({ dom });
    const call = await peer.nextPacket();
    peer.replyError(call, { code: 9, message: 'operation failed: Active console session exists for this domain' });
    const err = await opening.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConsoleBusyError);
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ code: 9, codeName: 'ErrOperationFailed', procedure: 'domainOpenConsole' });
  });

  it('any other refusal stays a plain LibvirtError', async () => {
    const peer = new FakePeer();
    const client = new LibvirtClient(new RpcConnection(peer.transport));
    const opening = client.domainOpenConsole({ dom });
    const call: Packet = await peer.nextPacket();
    peer.replyError(call, { code: 55, message: 'domain is not running' });
    const err = await opening.catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ConsoleBusyError);
    expect(isLibvirtError(err, 'ErrOperationInvalid')).toBe(true);
  });

  it('the connection ending fails the reader, finish and send with the connection error', async () => {
    const { peer, client, consoleStream } = await openConsole();
    const reading = readAll(consoleStream.output).catch((e: unknown) => e);
    peer.end();
    const reason = await client.rpc.ended;
    expect(reason).toBeInstanceOf(ConnectionClosedError);
    expect(await reading).toBe(reason);
    expect(await consoleStream.ended).toBe(reason);
    await expect(consoleStream.finish()).rejects.toBe(reason);
    await expect(consoleStream.send(Buffer.from('x'))).rejects.toBe(reason);
  });

  it('an unread output past the high-water mark pauses reading the connection until it is read', async () => {
    const peer = new FakePeer();
    const client = new LibvirtClient(new RpcConnection(peer.transport));
    const opening = client.domainOpenConsole({ dom, highWaterMark: 8 });
    const call = await peer.nextPacket();
    peer.reply(call, xdrVoid, undefined);
    const consoleStream = await opening;
    peer.stream(call, MessageStatus.Continue, Buffer.from('0123456789'));
    await nextTurn();
    expect(peer.transport.isPaused()).toBe(true);
    const reader = consoleStream.output[Symbol.asyncIterator]();
    expect((await reader.next()).value?.toString()).toBe('0123456789');
    expect(peer.transport.isPaused()).toBe(false);
  });
});
