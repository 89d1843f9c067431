import { describe, expect, it } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import { KEEPALIVE_PROGRAM, KeepaliveProcedure, MessageType } from '@/server/libvirt/net-protocol';
import { procedures } from '@/server/libvirt/protocol';
import { FakePeer } from './rpc-fake-peer';
import { nextTurn } from '@/test/support/wait';

const ret = procedures.connectGetHostname.ret;

/** Replies to the first of two pipelined calls; returns what the client wrote afterwards. */
async function afterFirstReply(options: { ackNudge?: boolean }) {
  const peer = new FakePeer();
  const conn = new RpcConnection(peer.transport, options);
  const calls = [conn.call('connectGetHostname', undefined), conn.call('connectGetHostname', undefined)];
  const [first, second] = [await peer.nextPacket(), await peer.nextPacket()];
  peer.reply(first!, ret, { hostname: 'a' });
  await calls[0];
  await nextTurn();
  const backlogAfterFirst = peer.backlog;
  const nudge = backlogAfterFirst > 0 ? await peer.nextPacket() : undefined;
  peer.reply(second!, ret, { hostname: 'b' });
  await calls[1];
  await nextTurn();
  return { nudge, backlogAfterLast: peer.backlog };
}

describe('acknowledging replies while calls are in flight', () => {
  it('sends one keepalive PONG (which libvirtd ignores) after a reply when more replies are due', async () => {
    const { nudge, backlogAfterLast } = await afterFirstReply({});
    expect(nudge?.header).toMatchObject({
      program: KEEPALIVE_PROGRAM,
      procedure: KeepaliveProcedure.Pong,
      type: MessageType.Message,
      serial: 0,
    });
    expect(backlogAfterLast).toBe(0); // nothing left in flight: no nudge
  });

  it('sends nothing when turned off', async () => {
    const { nudge } = await afterFirstReply({ ackNudge: false });
    expect(nudge).toBeUndefined();
  });
});
