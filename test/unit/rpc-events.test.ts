// Event subscriptions over a scripted libvirtd: REGISTER_ANY returns a callbackID, MESSAGE
// packets naming it reach that subscription's listener (typed), calls in flight are untouched,
// and every subscription ends with the connection's own typed error when the connection dies.
import { describe, expect, it } from 'vitest';
import { LibvirtClient, type DomainLifecycleEvent } from '@/server/libvirt/api';
import { RpcConnection } from '@/server/libvirt/client';
import { ConnectionClosedError, ConnectionKilledError, ProtocolError } from '@/server/libvirt/errors';
import { DomainEventStoppedDetail, DomainEventType, StoragePoolEventType } from '@/server/libvirt/flags';
import type { Packet } from '@/server/libvirt/framing';
import { MessageType } from '@/server/libvirt/net-protocol';
import { eventMessages, procedures, type EventName, type EventOf } from '@/server/libvirt/protocol';
import { decodeXdr, encodeXdr, type Shape } from '@/server/libvirt/xdr';
import { FakePeer } from './rpc-fake-peer';
import { nextTurn } from '@/test/support/wait';

const dom = { name: 'web-1', uuid: Buffer.alloc(16, 1), id: 4 };
const pool = { name: 'default', uuid: Buffer.alloc(16, 2) };

function setup() {
  const peer = new FakePeer();
  const client = new LibvirtClient(new RpcConnection(peer.transport));
  return { peer, client };
}

function sendEvent<N extends EventName>(peer: FakePeer, name: N, message: EventOf<N>): void {
  const { proc, msg } = eventMessages[name];
  peer.send({ procedure: proc, type: MessageType.Message, serial: 0 }, encodeXdr(msg as Shape<EventOf<N>>, message));
}

/** Answers the REGISTER call with `callbackID` and returns the call's packet. */
async function answerRegister(peer: FakePeer, callbackID: number): Promise<Packet> {
  const call = await peer.nextPacket();
  peer.reply(call, procedures.connectDomainEventCallbackRegisterAny.ret, { callbackID });
  return call;
}

const lifecycle = (callbackID: number, event: number, detail: number) => ({ callbackID, msg: { dom, event, detail } });

describe('event subscriptions', () => {
  it('registers with REMOTE_PROC_CONNECT_DOMAIN_EVENT_CALLBACK_REGISTER_ANY (316) for every domain', async () => {
    const { peer, client } = setup();
    const subscribing = client.connectDomainEventLifecycleRegister({ listener: () => undefined });
    const call = await answerRegister(peer, 5);
    expect(call.header.procedure).toBe(316);
    expect(decodeXdr(procedures.connectDomainEventCallbackRegisterAny.args, call.payload)).toEqual({ eventID: 0, dom: null });
    expect((await subscribing).callbackID).toBe(5);
  });

  it('hands each lifecycle message (318) to the subscription it names, typed and in order', async () => {
    const { peer, client } = setup();
    const first: DomainLifecycleEvent[] = [];
    const second: DomainLifecycleEvent[] = [];
    const subscribing = client.connectDomainEventLifecycleRegister({ listener: (event) => first.push(event) });
    await answerRegister(peer, 1);
    await subscribing;
    const again = client.connectDomainEventLifecycleRegister({ listener: (event) => second.push(event) });
    await answerRegister(peer, 2);
    await again;
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(1, DomainEventType.Suspended, 0));
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(2, DomainEventType.Stopped, DomainEventStoppedDetail.Destroyed));
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(1, DomainEventType.Resumed, 0));
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(99, DomainEventType.Started, 0)); // nobody's: dropped
    await nextTurn();
    expect(first).toEqual([
      { dom, event: DomainEventType.Suspended, detail: 0 },
      { dom, event: DomainEventType.Resumed, detail: 0 },
    ]);
    expect(second).toEqual([{ dom, event: DomainEventType.Stopped, detail: DomainEventStoppedDetail.Destroyed }]);
  });

  it('delivers an event that arrives in the same chunk right behind the REGISTER reply', async () => {
    const { peer, client } = setup();
    const events: DomainLifecycleEvent[] = [];
    const subscribing = client.connectDomainEventLifecycleRegister({ listener: (event) => events.push(event) });
    const call = await peer.nextPacket();
    const reply = Buffer.concat([
      frameOf(() => peer.reply(call, procedures.connectDomainEventCallbackRegisterAny.ret, { callbackID: 3 }), peer),
      frameOf(() => sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(3, DomainEventType.Started, 0)), peer),
    ]);
    peer.sendRaw(reply);
    await subscribing;
    expect(events).toEqual([{ dom, event: DomainEventType.Started, detail: 0 }]);
  });

  it('keeps pending calls unaffected while events arrive between their replies', async () => {
    const { peer, client } = setup();
    const events: DomainLifecycleEvent[] = [];
    const subscribing = client.connectDomainEventLifecycleRegister({ listener: (event) => events.push(event) });
    await answerRegister(peer, 1);
    await subscribing;
    const hostname = client.connectGetHostname();
    const version = client.connectGetLibVersion();
    const hostnameCall = await peer.nextPacket();
    const versionCall = await peer.nextPacket();
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(1, DomainEventType.Suspended, 0));
    peer.reply(versionCall, procedures.connectGetLibVersion.ret, { lib_ver: 9_000_000 });
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(1, DomainEventType.Resumed, 0));
    peer.reply(hostnameCall, procedures.connectGetHostname.ret, { hostname: 'hv' });
    expect(await hostname).toBe('hv');
    expect(await version).toBe(9_000_000);
    expect(events.map((event) => event.event)).toEqual([DomainEventType.Suspended, DomainEventType.Resumed]);
  });

  it('decodes storage pool lifecycle (370) and refresh (373) for their own subscriptions (368)', async () => {
    const { peer, client } = setup();
    const seen: string[] = [];
    const lifecycleSub = client.connectStoragePoolEventLifecycleRegister({ listener: ({ pool: p, event }) => seen.push(`${p.name}:${event}`) });
    const lifecycleCall = await peer.nextPacket();
    expect(lifecycleCall.header.procedure).toBe(368);
    expect(decodeXdr(procedures.connectStoragePoolEventRegisterAny.args, lifecycleCall.payload)).toEqual({ eventID: 0, pool: null });
    peer.reply(lifecycleCall, procedures.connectStoragePoolEventRegisterAny.ret, { callbackID: 7 });
    await lifecycleSub;
    const refreshSub = client.connectStoragePoolEventRefreshRegister({ listener: ({ pool: p }) => seen.push(`${p.name}:refresh`) });
    const refreshCall = await peer.nextPacket();
    expect(decodeXdr(procedures.connectStoragePoolEventRegisterAny.args, refreshCall.payload)).toEqual({ eventID: 1, pool: null });
    peer.reply(refreshCall, procedures.connectStoragePoolEventRegisterAny.ret, { callbackID: 8 });
    await refreshSub;
    sendEvent(peer, 'storagePoolEventLifecycle', { callbackID: 7, pool, event: StoragePoolEventType.Stopped, detail: 0 });
    sendEvent(peer, 'storagePoolEventRefresh', { callbackID: 8, pool });
    sendEvent(peer, 'storagePoolEventRefresh', { callbackID: 7, pool }); // a refresh for the lifecycle callback: not its event
    await nextTurn();
    expect(seen).toEqual([`default:${StoragePoolEventType.Stopped}`, 'default:refresh']);
  });

  it('keeps a domain and a pool subscription apart when libvirtd gives both the same callbackID (each driver counts its own)', async () => {
    const { peer, client } = setup();
    const seen: string[] = [];
    const domainSub = client.connectDomainEventLifecycleRegister({ listener: ({ dom: d, event }) => seen.push(`${d.name}:${event}`) });
    await answerRegister(peer, 0);
    await domainSub;
    const poolSub = client.connectStoragePoolEventLifecycleRegister({ listener: ({ pool: p, event }) => seen.push(`${p.name}:${event}`) });
    peer.reply(await peer.nextPacket(), procedures.connectStoragePoolEventRegisterAny.ret, { callbackID: 0 });
    await poolSub;
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(0, DomainEventType.Stopped, DomainEventStoppedDetail.Destroyed));
    sendEvent(peer, 'storagePoolEventLifecycle', { callbackID: 0, pool, event: StoragePoolEventType.Stopped, detail: 0 });
    await nextTurn();
    expect(seen).toEqual([`web-1:${DomainEventType.Stopped}`, `default:${StoragePoolEventType.Stopped}`]);
  });

  it('deregisters with DEREGISTER_ANY (317): ended settles with null and later events are dropped', async () => {
    const { peer, client } = setup();
    const events: DomainLifecycleEvent[] = [];
    const subscribing = client.connectDomainEventLifecycleRegister({ listener: (event) => events.push(event) });
    await answerRegister(peer, 4);
    const subscription = await subscribing;
    const deregistering = subscription.deregister();
    const call = await peer.nextPacket();
    expect(call.header.procedure).toBe(317);
    expect(decodeXdr(procedures.connectDomainEventCallbackDeregisterAny.args, call.payload)).toEqual({ callbackID: 4 });
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(4, DomainEventType.Started, 0));
    peer.reply(call, procedures.connectDomainEventCallbackDeregisterAny.ret, undefined);
    await deregistering;
    expect(await subscription.ended).toBeNull();
    expect(events).toEqual([]);
  });

  it.each([
    ['the peer closing', (peer: FakePeer) => peer.end(), ConnectionClosedError],
    ['our kill', (_peer: FakePeer, client: LibvirtClient) => client.rpc.kill(new Error('keepalive')), ConnectionKilledError],
  ] as const)('ends every subscription with the connection error on %s', async (_label, endIt, errorClass) => {
    const { peer, client } = setup();
    const subscribing = client.connectDomainEventLifecycleRegister({ listener: () => undefined });
    await answerRegister(peer, 1);
    const subscription = await subscribing;
    endIt(peer, client);
    const reason = await subscription.ended;
    expect(reason).toBeInstanceOf(errorClass);
    expect(reason).toBe(await client.rpc.ended);
    await expect(subscription.deregister()).resolves.toBeUndefined();
  });

  it('a malformed event message is a protocol error that ends the connection and its subscriptions', async () => {
    const { peer, client } = setup();
    const subscribing = client.connectDomainEventLifecycleRegister({ listener: () => undefined });
    await answerRegister(peer, 1);
    const subscription = await subscribing;
    peer.send({ procedure: 318, type: MessageType.Message, serial: 0 }, Buffer.alloc(6));
    expect(await subscription.ended).toBeInstanceOf(ProtocolError);
    expect(client.alive).toBe(false);
  });

  it('a listener that throws does not break the connection or the next events', async () => {
    const { peer, client } = setup();
    let calls = 0;
    const subscribing = client.connectDomainEventLifecycleRegister({
      listener: () => {
        calls += 1;
        throw new Error('listener bug');
      },
    });
    await answerRegister(peer, 1);
    await subscribing;
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(1, DomainEventType.Started, 0));
    sendEvent(peer, 'domainEventCallbackLifecycle', lifecycle(1, DomainEventType.Stopped, 0));
    await nextTurn();
    expect(calls).toBe(2);
    expect(client.alive).toBe(true);
  });
});

/** The bytes `send` would push, captured instead of sent. */
function frameOf(send: () => void, peer: FakePeer): Buffer {
  const original = peer.sendRaw.bind(peer);
  let captured: Buffer = Buffer.alloc(0);
  peer.sendRaw = (bytes: Buffer) => {
    captured = bytes;
  };
  try {
    send();
  } finally {
    peer.sendRaw = original;
  }
  return captured;
}
