import { describe, expect, it } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import { ConnectionClosedError, ConnectionClosingError, ProtocolError } from '@/server/libvirt/errors';
import { encodeFrame } from '@/server/libvirt/framing';
import { MessageStatus, MessageType } from '@/server/libvirt/net-protocol';
import { procedures, REMOTE_PROGRAM } from '@/server/libvirt/protocol';
import { encodeXdr } from '@/server/libvirt/xdr';
import { FakePeer } from './rpc-fake-peer';

const vol = { pool: 'default', name: 'v', key: '/v' };

function pendingWork(conn: RpcConnection) {
  const call = conn.call('connectGetLibVersion', undefined);
  const stream = (async () => {
    for await (const chunk of conn.download('storageVolDownload', { vol, offset: 0, length: 0, flags: 0 })) void chunk;
  })();
  return [call, stream].map((p) =>
    p.then(
      () => 'resolved',
      (e: unknown) => e,
    ),
  );
}

describe('the peer going away', () => {
  it('in the middle of a frame: everything pending fails with ConnectionClosedError caused by a ProtocolError', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const outcomes = pendingWork(conn);
    const call = await peer.nextPacket();
    const reply = encodeFrame(
      { program: REMOTE_PROGRAM, version: 1, procedure: 157, type: MessageType.Reply, serial: call.header.serial, status: MessageStatus.Ok },
      encodeXdr(procedures.connectGetLibVersion.ret, { lib_ver: 9_000_000 }),
    );
    peer.sendRaw(reply.subarray(0, 20)); // half a frame, then the socket closes
    peer.end();
    for (const err of await Promise.all(outcomes)) {
      expect(err).toBeInstanceOf(ConnectionClosedError);
      expect((err as Error).cause).toBeInstanceOf(ProtocolError);
    }
    expect(conn.alive).toBe(false);
  });

  it('cleanly between frames: everything pending fails with ConnectionClosedError', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const outcomes = pendingWork(conn);
    await peer.nextPacket();
    peer.end();
    for (const err of await Promise.all(outcomes)) expect(err).toBeInstanceOf(ConnectionClosedError);
  });

  it('with a transport error: the error is the cause', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const outcomes = pendingWork(conn);
    await peer.nextPacket();
    const failure = new Error('ECONNRESET');
    peer.transport.destroy(failure);
    for (const err of await Promise.all(outcomes)) {
      expect(err).toBeInstanceOf(ConnectionClosedError);
      expect((err as Error).cause).toBe(failure);
    }
  });

  it('close() sends CONNECT_CLOSE, then the transport goes and later calls are refused', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const closing = conn.close();
    const call = await peer.nextPacket();
    expect(call.header.procedure).toBe(2);
    expect(conn.alive).toBe(false);
    peer.reply(call, procedures.connectClose.ret, undefined);
    await closing;
    expect(peer.destroyed).toBe(true);
    await expect(conn.call('connectGetHostname', undefined)).rejects.toBeInstanceOf(ConnectionClosingError);
  });
});
