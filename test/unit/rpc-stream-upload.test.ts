import { randomBytes } from 'node:crypto';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import { LibvirtError, UploadSourceError } from '@/server/libvirt/errors';
import type { Packet } from '@/server/libvirt/framing';
import { MessageStatus, MessageType } from '@/server/libvirt/net-protocol';
import { procedures } from '@/server/libvirt/protocol';
import { decodeXdr } from '@/server/libvirt/xdr';
import { nextTurn } from '@/test/support/wait';
import { FakePeer } from './rpc-fake-peer';

const vol = { pool: 'default', name: 'rpctest-vol', key: '/pool/rpctest-vol' };
const args = { vol, offset: 0, length: 0, flags: 0 };

/** A source that records how far it has been read and whether it was closed. */
function recordingSource(chunks: Buffer[], failAfter?: Error) {
  const state = { pulls: 0, closed: false };
  async function* generate(): AsyncGenerator<Uint8Array> {
    try {
      for (const chunk of chunks) {
        state.pulls++;
        yield chunk;
      }
      if (failAfter) throw failAfter;
    } finally {
      state.closed = true;
    }
  }
  return { source: generate(), state };
}

/** Reads the client's packets up to and including the first one that is not STREAM CONTINUE. */
async function dataUntilControl(peer: FakePeer): Promise<{ data: Packet[]; control: Packet }> {
  const data: Packet[] = [];
  for (;;) {
    const packet = await peer.nextPacket();
    if (packet.header.type === MessageType.Stream && packet.header.status === MessageStatus.Continue) data.push(packet);
    else return { data, control: packet };
  }
}

const joined = (packets: Packet[]) => Buffer.concat(packets.map((p) => p.payload));

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

describe('storageVolUpload stream', () => {
  it('sends CALL, waits for the REPLY, sends data in chunks, finishes with STREAM OK and waits for the confirmation', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const bytes = randomBytes(300 * 1024 + 10);
    const { source } = recordingSource([bytes.subarray(0, 300 * 1024), bytes.subarray(300 * 1024)]);
    const upload = conn.upload('storageVolUpload', args, { source, chunkSize: 128 * 1024 });

    const call = await peer.nextPacket();
    expect(call.header).toMatchObject({ procedure: 208, type: MessageType.Call });
    expect(decodeXdr(procedures.storageVolUpload.args, call.payload)).toEqual(args);
    expect(peer.backlog).toBe(0); // nothing before the REPLY
    peer.reply(call, procedures.storageVolUpload.ret, undefined);

    const { data, control } = await dataUntilControl(peer);
    expect(data.map((p) => p.payload.length)).toEqual([131072, 131072, 45056, 10]);
    expect(data.every((p) => p.header.serial === call.header.serial && p.header.procedure === 208)).toBe(true);
    expect(joined(data).equals(bytes)).toBe(true);
    expect(control.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Ok, serial: call.header.serial });
    expect(control.payload.length).toBe(0);

    let settled = false;
    void upload.then(() => (settled = true));
    await nextTurn();
    expect(settled).toBe(false); // still waiting for libvirtd's confirmation
    peer.stream(call, MessageStatus.Ok);
    await expect(upload).resolves.toEqual({ bytesSent: bytes.length });
  });

  it('reads the source no faster than the transport drains', async () => {
    const peer = new FakePeer({ highWaterMark: 16 * 1024 });
    const conn = new RpcConnection(peer.transport);
    const chunks = Array.from({ length: 40 }, () => randomBytes(64 * 1024));
    const { source, state } = recordingSource(chunks);
    const upload = conn.upload('storageVolUpload', args, { source, chunkSize: 64 * 1024 });
    const call = await peer.nextPacket();
    peer.holdWrites(); // the link stops taking bytes
    peer.reply(call, procedures.storageVolUpload.ret, undefined);
    await vi.waitFor(() => expect(state.pulls).toBe(1)); // the first chunk is on its way to the link
    // The upload loop, the source and the in-memory link are promise and nextTick callbacks: one
    // turn runs every read they would make before the link drains.
    await nextTurn();
    expect(state.pulls).toBe(1); // one chunk in flight, the other 39 still in the source
    peer.releaseWrites();
    const { data } = await dataUntilControl(peer);
    peer.stream(call, MessageStatus.Ok);
    await expect(upload).resolves.toEqual({ bytesSent: 40 * 64 * 1024 });
    expect(joined(data).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('a failing source ends the stream cleanly and the error is reported after it (out of band)', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const failure = new Error('body ended early');
    const { source } = recordingSource([Buffer.alloc(1000, 1), Buffer.alloc(500, 2)], failure);
    const upload = conn.upload('storageVolUpload', args, { source });
    const call = await peer.nextPacket();
    peer.reply(call, procedures.storageVolUpload.ret, undefined);
    const { data, control } = await dataUntilControl(peer);
    expect(joined(data).length).toBe(1500);
    expect(control.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Ok }); // a clean finish
    peer.stream(call, MessageStatus.Ok);
    const err = await upload.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadSourceError);
    expect(err).toMatchObject({ code: 'LIBVIRT_UPLOAD_SOURCE', bytesSent: 1500, cause: failure });
    expect(conn.alive).toBe(true);
  });

  it("with onSourceError 'abort', a failing source aborts the stream with STREAM ERROR", async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const { source } = recordingSource([Buffer.alloc(10)], new Error('broken'));
    const upload = conn.upload('storageVolUpload', args, { source, onSourceError: 'abort' });
    const call = await peer.nextPacket();
    peer.reply(call, procedures.storageVolUpload.ret, undefined);
    const { control } = await dataUntilControl(peer);
    expect(control.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Error });
    peer.stream(call, MessageStatus.Ok);
    await expect(upload).rejects.toBeInstanceOf(UploadSourceError);
    expect(conn.alive).toBe(true);
  });

  it('an error from libvirtd mid-upload stops reading the source and rejects with LibvirtError', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const { source, state } = recordingSource(Array.from({ length: 1000 }, () => Buffer.alloc(4096)));
    const upload = conn.upload('storageVolUpload', args, { source });
    const call = await peer.nextPacket();
    peer.reply(call, procedures.storageVolUpload.ret, undefined);
    await peer.nextPacket();
    peer.replyError(call, { code: 38, domain: 18, message: 'cannot write: No space left on device' });
    const err = await upload.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ codeName: 'ErrSystemError', procedure: 'storageVolUpload' });
    await nextTurn();
    expect(state.pulls).toBeLessThan(1000);
    expect(state.closed).toBe(true);
    expect(conn.alive).toBe(true);
    const next = conn.call('connectGetHostname', undefined);
    const nextCall = await (async () => {
      for (;;) {
        const packet = await peer.nextPacket();
        if (packet.header.type === MessageType.Call) return packet;
      }
    })();
    peer.reply(nextCall, procedures.connectGetHostname.ret, { hostname: 'vm' });
    await expect(next).resolves.toEqual({ hostname: 'vm' });
  });

  it('an error reply to the CALL itself sends no data', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const { source, state } = recordingSource([Buffer.alloc(10)]);
    const upload = conn.upload('storageVolUpload', args, { source });
    const call = await peer.nextPacket();
    peer.replyError(call, { code: 50, domain: 18, message: 'Storage volume not found' });
    await expect(upload).rejects.toMatchObject({ codeName: 'ErrNoStorageVol' });
    expect(state.pulls).toBe(0);
    expect(peer.backlog).toBe(0);
  });

  it('keeps nothing of what it has sent, so memory stays flat for any size', async () => {
    const peer = new FakePeer({ discardStreamData: true });
    const conn = new RpcConnection(peer.transport);
    const sent: Array<WeakRef<Buffer>> = [];
    let earlyStillAlive = -1;
    async function* source(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 300; i++) {
        if (i === 200) {
          collectGarbage();
          earlyStillAlive = sent.slice(0, 100).filter((ref) => ref.deref() !== undefined).length;
        }
        const chunk = Buffer.alloc(64 * 1024, i);
        sent.push(new WeakRef(chunk));
        yield chunk;
      }
    }
    const upload = conn.upload('storageVolUpload', args, { source: source() });
    const call = await peer.nextPacket();
    peer.reply(call, procedures.storageVolUpload.ret, undefined);
    const finish = await peer.nextPacket();
    expect(finish.header).toMatchObject({ type: MessageType.Stream, status: MessageStatus.Ok });
    peer.stream(call, MessageStatus.Ok);
    await expect(upload).resolves.toEqual({ bytesSent: 300 * 64 * 1024 });
    expect(peer.discardedBytes).toBe(300 * 64 * 1024);
    expect(earlyStillAlive).toBe(0);
  });
});
