import { afterEach, describe, expect, it, vi } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import { KeepaliveTimeoutError } from '@/server/libvirt/errors';
import { encodeFrame } from '@/server/libvirt/framing';
import { KEEPALIVE_PROGRAM, KeepaliveProcedure, MessageStatus, MessageType } from '@/server/libvirt/net-protocol';
import { FakePeer } from './rpc-fake-peer';

const keepaliveFrame = (procedure: number) =>
  encodeFrame({
    program: KEEPALIVE_PROGRAM,
    version: 1,
    procedure,
    type: MessageType.Message,
    serial: 0,
    status: MessageStatus.Ok,
  });

afterEach(() => {
  vi.useRealTimers();
});

describe('libvirt keepalive program', () => {
  it("answers the daemon's PING with a PONG", async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    peer.sendRaw(keepaliveFrame(KeepaliveProcedure.Ping));
    const pong = await peer.nextPacket();
    expect(pong.header).toEqual({
      program: KEEPALIVE_PROGRAM,
      version: 1,
      procedure: KeepaliveProcedure.Pong,
      type: MessageType.Message,
      serial: 0,
      status: MessageStatus.Ok,
    });
    expect(pong.payload.length).toBe(0);
    expect(conn.alive).toBe(true);
  });

  it('pings a silent peer and keeps the connection while PONGs come back', async () => {
    vi.useFakeTimers();
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport, { keepalive: { intervalMs: 1_000, maxMissed: 3 } });
    for (let round = 0; round < 5; round++) {
      await vi.advanceTimersByTimeAsync(1_000);
      const ping = await peer.nextPacket();
      expect(ping.header).toMatchObject({ program: KEEPALIVE_PROGRAM, procedure: KeepaliveProcedure.Ping });
      peer.sendRaw(keepaliveFrame(KeepaliveProcedure.Pong));
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(conn.alive).toBe(true);
  });

  it('kills the connection and fails pending calls when PINGs go unanswered', async () => {
    vi.useFakeTimers();
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport, {
      keepalive: { intervalMs: 1_000, maxMissed: 3 },
      defaultTimeoutMs: 60_000,
    });
    const pending = conn.call('connectGetLibVersion', undefined);
    const outcome = pending.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3_000);
    const err = await outcome;
    expect(err).toMatchObject({ code: 'LIBVIRT_CONNECTION_KILLED' });
    expect((err as Error).cause).toBeInstanceOf(KeepaliveTimeoutError);
    expect(conn.alive).toBe(false);
    expect(peer.destroyed).toBe(true);
    expect(await conn.ended).toBe(err);
  });
});
