import { describe, expect, it } from 'vitest';
import { RpcConnection } from '@/server/libvirt/client';
import { EncodeError, LibvirtError, MessageTooLargeError } from '@/server/libvirt/errors';
import { MessageType } from '@/server/libvirt/net-protocol';
import { procedures } from '@/server/libvirt/protocol';
import { FakePeer } from './rpc-fake-peer';

const hostnameRet = procedures.connectGetHostname.ret;

describe('many calls in flight on one connection', () => {
  it('matches out-of-order replies to their calls by serial', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const calls = Array.from({ length: 50 }, () => conn.call('connectGetHostname', undefined));
    const received = await Promise.all(calls.map(() => peer.nextPacket()));
    expect(new Set(received.map((p) => p.header.serial)).size).toBe(50);
    expect(received.every((p) => p.header.procedure === 59 && p.header.type === MessageType.Call)).toBe(true);
    for (const call of [...received].reverse()) peer.reply(call, hostnameRet, { hostname: `host-${call.header.serial}` });
    const answers = await Promise.all(calls);
    expect(answers).toEqual(received.map((p) => ({ hostname: `host-${p.header.serial}` })));
  });

  it('fails only the call that got an error reply', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const good = conn.call('connectGetHostname', undefined);
    const bad = conn.call('domainLookupByName', { name: 'missing' });
    const goodCall = await peer.nextPacket();
    const badCall = await peer.nextPacket();
    peer.replyError(badCall, { code: 42, message: 'Domain not found' });
    peer.reply(goodCall, hostnameRet, { hostname: 'vm' });
    await expect(bad).rejects.toBeInstanceOf(LibvirtError);
    await expect(good).resolves.toEqual({ hostname: 'vm' });
    expect(conn.alive).toBe(true);
  });

  it('tolerates event MESSAGE packets and replies for serials nobody owns', async () => {
    const peer = new FakePeer();
    const events: number[] = [];
    const conn = new RpcConnection(peer.transport, { onMessage: (packet) => events.push(packet.header.procedure) });
    const pending = conn.call('connectGetHostname', undefined);
    const call = await peer.nextPacket();
    peer.send({ procedure: 319, type: MessageType.Message, serial: 0 }, Buffer.alloc(12)); // an event nobody decodes
    peer.send({ procedure: 59, type: MessageType.Reply, serial: 987654 }, Buffer.alloc(4));
    peer.reply(call, hostnameRet, { hostname: 'vm' });
    await expect(pending).resolves.toEqual({ hostname: 'vm' });
    expect(events).toEqual([319]);
    expect(conn.alive).toBe(true);
  });

  it('refuses arguments it cannot encode without touching the connection', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    await expect(conn.call('domainDefineXmlFlags', { xml: 'x', flags: -1 })).rejects.toBeInstanceOf(EncodeError);
    const fourMiB = 'x'.repeat(4 * 1024 * 1024); // the string limit; four of them pass 16 MiB
    const overLimit = conn.call('domainSetMetadata', {
      dom: { name: fourMiB, uuid: Buffer.alloc(16), id: -1 },
      type: 2,
      metadata: fourMiB,
      key: fourMiB,
      uri: fourMiB,
      flags: 0,
    });
    await expect(overLimit).rejects.toBeInstanceOf(MessageTooLargeError);
    expect(conn.alive).toBe(true);
    expect(peer.written).toHaveLength(0);
  });

  it('decodes a reply whose shape does not match as fatal: the daemon speaks another protocol', async () => {
    const peer = new FakePeer();
    const conn = new RpcConnection(peer.transport);
    const first = conn.call('connectGetLibVersion', undefined);
    const second = conn.call('connectGetHostname', undefined);
    const call = await peer.nextPacket();
    peer.send({ procedure: 157, type: MessageType.Reply, serial: call.header.serial }, Buffer.alloc(3));
    await expect(first).rejects.toMatchObject({ code: 'LIBVIRT_PROTOCOL' });
    await expect(second).rejects.toMatchObject({ code: 'LIBVIRT_PROTOCOL' });
    expect(conn.alive).toBe(false);
  });
});
