import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import { LibvirtError } from '@/server/libvirt/errors';
import { MessageStatus, MessageType } from '@/server/libvirt/net-protocol';
import { procedures } from '@/server/libvirt/protocol';
import { FakePeer } from './rpc-fake-peer';
import { nextTurn } from '@/test/support/wait';

const vol = { pool: 'default', name: 'rpctest-vol', key: '/pool/rpctest-vol' };
const args = { vol, offset: 0, length: 0, flags: 0 };

async function collect(iterable: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of iterable) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function openedDownload(peer: FakePeer, iterable: AsyncIterable<Buffer>) {
  const iterator = iterable[Symbol.asyncIterator]();
  const first = iterator.next();
  const call = await peer.nextPacket();
  peer.reply(call, procedures.storageVolDownload.ret, undefined);
  return { iterator, first, call };
}

describe('storageVolDownload stream', () => {
  it.each([
    ['an empty STREAM CONTINUE, as libvirtd sends it', MessageStatus.Continue],
    ['an empty STREAM OK', MessageStatus.Ok],
  ] as const)('yields the data packets until %s, then finishes with STREAM OK and waits for the confirmation', async (_eof, eofStatus) => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const parts = [randomBytes(262144), randomBytes(262144), randomBytes(1000)];
    const result = collect(conn.download('storageVolDownload', args));
    const call = await peer.nextPacket();
    expect(call.header).toMatchObject({ procedure: 209, type: MessageType.Call });
    peer.reply(call, procedures.storageVolDownload.ret, undefined);
    for (const part of parts) peer.stream(call, MessageStatus.Continue, part);
    peer.stream(call, eofStatus); // end of data
    const finish = await peer.nextPacket();
    expect(finish.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Ok, serial: call.header.serial });
    peer.stream(call, MessageStatus.Ok); // confirmation
    expect((await result).equals(Buffer.concat(parts))).toBe(true);
    expect(conn.alive).toBe(true);
  });

  it('keeps data and the end of a small stream that libvirtd sends before its REPLY', async () => {
    // Seen on the lab reading a 64-byte marker: the daemon's stream event beat the reply.
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const result = collect(conn.download('storageVolDownload', args));
    const call = await peer.nextPacket();
    peer.stream(call, MessageStatus.Continue, Buffer.from('digest'));
    peer.stream(call, MessageStatus.Continue); // end of data
    peer.reply(call, procedures.storageVolDownload.ret, undefined);
    const finish = await peer.nextPacket();
    expect(finish.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Ok, serial: call.header.serial });
    peer.stream(call, MessageStatus.Ok);
    expect((await result).toString()).toBe('digest');
    expect(conn.alive).toBe(true);
  });

  it('an error from libvirtd mid-stream ends the iteration with LibvirtError', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const { iterator, first, call } = await openedDownload(peer, conn.download('storageVolDownload', args));
    peer.stream(call, MessageStatus.Continue, Buffer.from('abc'));
    expect((await first).value?.toString()).toBe('abc');
    peer.replyError(call, { code: 38, message: 'read failed', type: MessageType.Stream });
    const err = await iterator.next().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ codeName: 'ErrSystemError', message: 'read failed' });
    expect(conn.alive).toBe(true);
  });

  it('leaving the loop early aborts the stream with STREAM ERROR and keeps the connection', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const { iterator, first, call } = await openedDownload(peer, conn.download('storageVolDownload', args));
    peer.stream(call, MessageStatus.Continue, Buffer.alloc(10));
    await first;
    await iterator.return?.();
    const abort = await peer.nextPacket();
    expect(abort.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Error, serial: call.header.serial });
    peer.stream(call, MessageStatus.Continue, Buffer.alloc(10)); // late data for a serial nobody owns
    peer.stream(call, MessageStatus.Ok); // libvirtd's confirmation of the abort
    const next = conn.call('connectGetHostname', undefined);
    const nextCall = await peer.nextPacket();
    peer.reply(nextCall, procedures.connectGetHostname.ret, { hostname: 'vm' });
    await expect(next).resolves.toEqual({ hostname: 'vm' });
  });

  it('stops reading the transport while the consumer lags, and resumes when it catches up', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const iterable = conn.download('storageVolDownload', args, { highWaterMark: 4096 });
    const { iterator, first, call } = await openedDownload(peer, iterable);
    for (let i = 0; i < 8; i++) peer.stream(call, MessageStatus.Continue, Buffer.alloc(1024, i));
    peer.stream(call, MessageStatus.Continue);
    await first;
    await nextTurn();
    expect(peer.transport.isPaused()).toBe(true);
    const rest: number[] = [];
    let finished = false;
    const draining = (async () => {
      for (;;) {
        const step = await iterator.next();
        if (step.done) break;
        rest.push(step.value[0]!);
      }
      finished = true;
    })();
    const finish = await peer.nextPacket();
    expect(finish.header.status).toBe(MessageStatus.Ok);
    expect(peer.transport.isPaused()).toBe(false);
    peer.stream(call, MessageStatus.Ok);
    await draining;
    expect(finished).toBe(true);
    expect(rest).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});
