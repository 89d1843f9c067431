import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openConnection } from '@/server/libvirt/connect';
import { AuthUnsupportedError, CallTimeoutError, LibvirtError } from '@/server/libvirt/errors';
import { AuthType, procedures } from '@/server/libvirt/protocol';
import { decodeXdr } from '@/server/libvirt/xdr';
import { FakePeer } from './rpc-fake-peer';
import { nextTurn } from '@/test/support/wait';

const dialerFor = (peer: FakePeer) => ({ dial: async () => peer.transport });

describe('opening a libvirt connection', () => {
  it('AUTH_LIST answering none goes straight to CONNECT_OPEN with the URI', async () => {
    const peer = new FakePeer();
    const opening = openConnection({ dialer: dialerFor(peer) });
    const authList = await peer.nextPacket();
    expect(authList.header.procedure).toBe(66);
    peer.reply(authList, procedures.authList.ret, { types: [AuthType.None] });
    const open = await peer.nextPacket();
    expect(open.header.procedure).toBe(1);
    expect(decodeXdr(procedures.connectOpen.args, open.payload)).toEqual({ name: 'qemu:///system', flags: 0 });
    peer.reply(open, procedures.connectOpen.ret, undefined);
    const conn = await opening;
    expect(conn.alive).toBe(true);
  });

  it('AUTH_LIST answering polkit calls AUTH_POLKIT before CONNECT_OPEN', async () => {
    const peer = new FakePeer();
    const opening = openConnection({ dialer: dialerFor(peer), uri: 'qemu:///session', readOnly: true });
    peer.reply(await peer.nextPacket(), procedures.authList.ret, { types: [AuthType.Polkit] });
    const polkit = await peer.nextPacket();
    expect(polkit.header.procedure).toBe(70);
    peer.reply(polkit, procedures.authPolkit.ret, { complete: 1 });
    const open = await peer.nextPacket();
    expect(decodeXdr(procedures.connectOpen.args, open.payload)).toEqual({ name: 'qemu:///session', flags: 1 });
    peer.reply(open, procedures.connectOpen.ret, undefined);
    await expect(opening).resolves.toMatchObject({ alive: true });
  });

  it('a user polkit refuses gets the LibvirtError, and the transport is closed', async () => {
    const peer = new FakePeer();
    const opening = openConnection({ dialer: dialerFor(peer) });
    peer.reply(await peer.nextPacket(), procedures.authList.ret, { types: [AuthType.Polkit] });
    peer.replyError(await peer.nextPacket(), { code: 45, domain: 7, message: 'authentication failed: access denied by policy' });
    const err = await opening.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect(err).toMatchObject({ codeName: 'ErrAuthFailed', procedure: 'authPolkit' });
    expect(peer.destroyed).toBe(true);
  });

  it('a daemon that only offers SASL gets AuthUnsupportedError', async () => {
    const peer = new FakePeer();
    const opening = openConnection({ dialer: dialerFor(peer) });
    peer.reply(await peer.nextPacket(), procedures.authList.ret, { types: [AuthType.Sasl] });
    const err = await opening.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthUnsupportedError);
    expect(err).toMatchObject({ code: 'LIBVIRT_AUTH_UNSUPPORTED', offered: ['sasl'] });
    expect(peer.destroyed).toBe(true);
  });

  it('a dial that outlives the budget is given up, told so, and its late transport destroyed', async () => {
    const peer = new FakePeer();
    let dialSignal: AbortSignal | undefined;
    let deliver!: (transport: Duplex) => void;
    const dialer = {
      dial: (signal?: AbortSignal) => {
        dialSignal = signal;
        return new Promise<Duplex>((resolve) => (deliver = resolve));
      },
    };
    const err = await openConnection({ dialer, timeoutMs: 30 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallTimeoutError);
    expect(dialSignal?.aborted).toBe(true);
    deliver(peer.transport);
    await nextTurn();
    expect(peer.destroyed).toBe(true);
  });

  it('a handshake answered by nobody ends within the budget', async () => {
    const peer = new FakePeer();
    const err = await openConnection({ dialer: dialerFor(peer), timeoutMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallTimeoutError);
    expect(err).toMatchObject({ procedure: 'authList' });
    expect(peer.destroyed).toBe(true);
  });
});
