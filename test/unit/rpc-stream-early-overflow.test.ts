// Stream data that libvirtd sends before the REPLY of the call that opened the stream is held
// until the reply comes, and reading cannot be paused meanwhile (the reply is behind it). A daemon
// that floods a stream's serial before replying makes the open fail with StreamOverflowError past
// the stream's bound: it abandons the stream with STREAM ERROR, and the connection's other calls go on.
import { describe, expect, it } from 'vitest';
import { LibvirtClient } from '@/server/libvirt/api';
import { RpcConnection } from '@/server/libvirt/client';
import { StreamOverflowError } from '@/server/libvirt/errors';
import type { Packet } from '@/server/libvirt/framing';
import { MessageStatus, MessageType } from '@/server/libvirt/net-protocol';
import { procedures } from '@/server/libvirt/protocol';
import { FakePeer } from './rpc-fake-peer';

const vol = { pool: 'default', name: 'rpctest-vol', key: '/pool/rpctest-vol' };
const dom = { name: 'web-1', uuid: Buffer.alloc(16, 3), id: 2 };

/** Floods the call's serial with data before any reply: 64 KiB packets, or empty ones. */
function flood(peer: FakePeer, call: Packet, options: { packets: number; bytes: number }): void {
  for (let i = 0; i < options.packets; i++) peer.stream(call, MessageStatus.Continue, options.bytes > 0 ? Buffer.alloc(options.bytes, i) : undefined);
}

async function expectAbandonedAndConnectionUsable(peer: FakePeer, conn: RpcConnection, call: Packet): Promise<void> {
  const abort = await peer.nextPacket();
  expect(abort.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Error, serial: call.header.serial });
  // The late reply and more data for the abandoned serial are ignored.
  peer.reply(call, procedures.storageVolDownload.ret, undefined);
  peer.stream(call, MessageStatus.Continue, Buffer.alloc(10));
  const next = conn.call('connectGetHostname', undefined);
  const nextCall = await peer.nextPacket();
  peer.reply(nextCall, procedures.connectGetHostname.ret, { hostname: 'vm' });
  await expect(next).resolves.toEqual({ hostname: 'vm' });
}

describe('stream data before the REPLY', () => {
  it('fails a download with StreamOverflowError once more than its high-water mark arrived', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const iterator = conn.download('storageVolDownload', { vol, offset: 0, length: 0, flags: 0 }, { highWaterMark: 256 * 1024 })[Symbol.asyncIterator]();
    const first = iterator.next();
    const call = await peer.nextPacket();
    flood(peer, call, { packets: 64, bytes: 64 * 1024 });
    const err = await first.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamOverflowError);
    expect(err).toMatchObject({ code: 'LIBVIRT_STREAM_OVERFLOW', procedure: 'storageVolDownload', limitBytes: 256 * 1024 });
    expect((err as Error).message).toMatch(/storageVolDownload: libvirtd sent more than 262144 bytes of stream data before its reply/);
    await expectAbandonedAndConnectionUsable(peer, conn, call);
  });

  it('counts empty packets too: a flood of them is no cheaper to hold', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const iterator = conn.download('storageVolDownload', { vol, offset: 0, length: 0, flags: 0 }, { highWaterMark: 64 * 1024 })[Symbol.asyncIterator]();
    const first = iterator.next();
    const call = await peer.nextPacket();
    flood(peer, call, { packets: 20_000, bytes: 0 });
    await expect(first).rejects.toBeInstanceOf(StreamOverflowError);
    await expectAbandonedAndConnectionUsable(peer, conn, call);
  });

  it('fails a console open the same way, past the console output bound', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const client = new LibvirtClient(conn);
    const opening = client.domainOpenConsole({ dom, flags: 0 });
    const call = await peer.nextPacket();
    flood(peer, call, { packets: 64, bytes: 64 * 1024 });
    await expect(opening).rejects.toMatchObject({ name: 'StreamOverflowError', procedure: 'domainOpenConsole' });
    await expectAbandonedAndConnectionUsable(peer, conn, call);
  });

  it('still keeps early data within the bound (the daemon’s stream event can beat its reply)', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const iterator = conn.download('storageVolDownload', { vol, offset: 0, length: 0, flags: 0 }, { highWaterMark: 256 * 1024 })[Symbol.asyncIterator]();
    const first = iterator.next();
    const call = await peer.nextPacket();
    flood(peer, call, { packets: 3, bytes: 64 * 1024 });
    peer.reply(call, procedures.storageVolDownload.ret, undefined);
    expect((await first).value).toEqual(Buffer.alloc(64 * 1024, 0));
    expect(conn.alive).toBe(true);
  });
});
