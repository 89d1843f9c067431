import { afterEach, describe, expect, it, vi } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import { CallAbortedError, CallTimeoutError, ConnectionKilledError } from '@/server/libvirt/errors';
import { FakePeer } from './rpc-fake-peer';

afterEach(() => {
  vi.useRealTimers();
});

async function* endless(): AsyncGenerator<Uint8Array> {
  for (;;) yield Buffer.alloc(1024);
}

const vol = { pool: 'default', name: 'v', key: '/v' };

describe('abandoning a call kills its connection', () => {
  it('a call past its budget rejects with CallTimeoutError; every other call and stream with ConnectionKilledError', async () => {
    vi.useFakeTimers();
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const order: string[] = [];
    peer.transport.once('close', () => order.push(`transport destroyed, alive=${conn.alive}`));

    const slow = conn.call('connectGetLibVersion', undefined, { timeoutMs: 2_000 });
    const other = conn.call('connectGetHostname', undefined, { timeoutMs: 60_000 });
    const download = conn.download('storageVolDownload', { vol, offset: 0, length: 0, flags: 0 }, { timeoutMs: 60_000 });
    const reading = (async () => {
      for await (const chunk of download) void chunk;
    })();
    const outcomes = [slow, other, reading].map((p) =>
      p.then(
        () => 'resolved',
        (e: unknown) => {
          order.push(`rejected ${(e as Error).name}`);
          return e;
        },
      ),
    );

    await vi.advanceTimersByTimeAsync(2_000);
    const [slowErr, otherErr, streamErr] = await Promise.all(outcomes);

    expect(slowErr).toBeInstanceOf(CallTimeoutError);
    expect(slowErr).toMatchObject({ code: 'LIBVIRT_CALL_TIMEOUT', procedure: 'connectGetLibVersion', timeoutMs: 2_000 });
    for (const err of [otherErr, streamErr]) {
      expect(err).toBeInstanceOf(ConnectionKilledError);
      expect((err as Error).cause).toBe(slowErr);
    }
    expect(conn.alive).toBe(false);
    expect(peer.destroyed).toBe(true);
    expect(order[0]).toBe('transport destroyed, alive=false');
  });

  it('an AbortSignal does the same with CallAbortedError, also in the middle of an upload', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const controller = new AbortController();
    const upload = conn.upload('storageVolUpload', { vol, offset: 0, length: 0, flags: 0 }, { source: endless(), signal: controller.signal });
    const bystander = conn.call('connectGetHostname', undefined);
    const call = await peer.nextPacket();
    await peer.nextPacket(); // the bystander's call
    peer.send({ procedure: 208, type: 1, serial: call.header.serial });
    const data = await peer.nextPacket();
    expect(data.header).toMatchObject({ type: 3, status: 2, serial: call.header.serial }); // data is flowing
    controller.abort(new Error('operator cancelled'));
    const err = await upload.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallAbortedError);
    expect((err as Error).cause).toEqual(new Error('operator cancelled'));
    await expect(bystander).rejects.toBeInstanceOf(ConnectionKilledError);
    expect(peer.destroyed).toBe(true);
  });

  it('an already aborted signal refuses the call and leaves the connection alone', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    await expect(conn.call('connectGetHostname', undefined, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(CallAbortedError);
    expect(conn.alive).toBe(true);
    expect(peer.written).toHaveLength(0);
  });

  it('calls made after the kill fail at once with the same error', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    conn.kill(new Error('test'));
    const err = await conn.call('connectGetHostname', undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionKilledError);
    expect(await conn.ended).toBe(err);
  });
});
