import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LibvirtClient } from '@/server/libvirt/api';
import { RpcConnection } from '@/server/libvirt/client';
import { procedures, type CallName } from '@/server/libvirt/protocol';
import { decodeXdr, type Shape } from '@/server/libvirt/xdr';
import { FakePeer } from './rpc-fake-peer';
import { arbitraryFor } from './xdr-arbitrary';

const dom = { name: 'rpctest-dom', uuid: Buffer.alloc(16, 1), id: -1 };
const pool = { name: 'default', uuid: Buffer.alloc(16, 2) };
const vol = { pool: 'default', name: 'rpctest-vol', key: '/p/rpctest-vol' };
const net = { name: 'default', uuid: Buffer.alloc(16, 3) };
const iface = { name: 'br0', mac: '52:54:00:00:00:01' };

type Invocation = (api: LibvirtClient) => Promise<unknown>;
type Unwrap = (ret: never) => unknown;

// [wrapper, procedure it must call, the arguments it must send, what it returns from the reply]
const wrappers: Array<[Invocation, CallName, unknown, Unwrap]> = [
  [(a) => a.connectGetLibVersion(), 'connectGetLibVersion', undefined, (r: { lib_ver: number }) => r.lib_ver],
  [(a) => a.connectGetHostname(), 'connectGetHostname', undefined, (r: { hostname: string }) => r.hostname],
  [(a) => a.connectGetCapabilities(), 'connectGetCapabilities', undefined, (r: { capabilities: string }) => r.capabilities],
  [
    (a) => a.connectGetDomainCapabilities({ virttype: 'qemu' }),
    'connectGetDomainCapabilities',
    { emulatorbin: null, arch: null, machine: null, virttype: 'qemu', flags: 0 },
    (r: { capabilities: string }) => r.capabilities,
  ],
  [(a) => a.connectListAllDomains({ flags: 3 }), 'connectListAllDomains', { need_results: 1, flags: 3 }, (r: { domains: unknown }) => r.domains],
  [(a) => a.connectListAllStoragePools(), 'connectListAllStoragePools', { need_results: 1, flags: 0 }, (r: { pools: unknown }) => r.pools],
  [(a) => a.connectListAllNetworks({ flags: 2 }), 'connectListAllNetworks', { need_results: 1, flags: 2 }, (r: { nets: unknown }) => r.nets],
  [(a) => a.connectListAllInterfaces(), 'connectListAllInterfaces', { need_results: 1, flags: 0 }, (r: { ifaces: unknown }) => r.ifaces],
  [(a) => a.networkGetXmlDesc({ net }), 'networkGetXmlDesc', { net, flags: 0 }, (r: { xml: string }) => r.xml],
  [(a) => a.interfaceGetXmlDesc({ iface }), 'interfaceGetXmlDesc', { iface, flags: 0 }, (r: { xml: string }) => r.xml],
  [(a) => a.domainLookupByName({ name: 'x' }), 'domainLookupByName', { name: 'x' }, (r: { dom: unknown }) => r.dom],
  [(a) => a.domainDefineXmlFlags({ xml: '<domain/>', flags: 1 }), 'domainDefineXmlFlags', { xml: '<domain/>', flags: 1 }, (r: { dom: unknown }) => r.dom],
  [(a) => a.domainCreate({ dom }), 'domainCreate', { dom }, () => undefined],
  [(a) => a.domainDestroy({ dom }), 'domainDestroy', { dom }, () => undefined],
  [(a) => a.domainUndefineFlags({ dom, flags: 4 }), 'domainUndefineFlags', { dom, flags: 4 }, () => undefined],
  [(a) => a.domainGetState({ dom }), 'domainGetState', { dom, flags: 0 }, (r: unknown) => r],
  [(a) => a.domainGetXmlDesc({ dom }), 'domainGetXmlDesc', { dom, flags: 0 }, (r: { xml: string }) => r.xml],
  [
    (a) => a.domainGetMetadata({ dom, type: 2, uri: 'urn:x' }),
    'domainGetMetadata',
    { dom, type: 2, uri: 'urn:x', flags: 0 },
    (r: { metadata: string }) => r.metadata,
  ],
  [
    (a) => a.domainSetMetadata({ dom, type: 2, metadata: '<i/>', key: 'k', uri: 'urn:x', flags: 2 }),
    'domainSetMetadata',
    { dom, type: 2, metadata: '<i/>', key: 'k', uri: 'urn:x', flags: 2 },
    () => undefined,
  ],
  [(a) => a.domainInterfaceAddresses({ dom, source: 1 }), 'domainInterfaceAddresses', { dom, source: 1, flags: 0 }, (r: { ifaces: unknown }) => r.ifaces],
  [(a) => a.storagePoolLookupByName({ name: 'default' }), 'storagePoolLookupByName', { name: 'default' }, (r: { pool: unknown }) => r.pool],
  [(a) => a.storagePoolGetInfo({ pool }), 'storagePoolGetInfo', { pool }, (r: unknown) => r],
  [(a) => a.storagePoolRefresh({ pool }), 'storagePoolRefresh', { pool, flags: 0 }, () => undefined],
  [(a) => a.storagePoolGetXmlDesc({ pool }), 'storagePoolGetXmlDesc', { pool, flags: 0 }, (r: { xml: string }) => r.xml],
  [(a) => a.storagePoolCreate({ pool }), 'storagePoolCreate', { pool, flags: 0 }, () => undefined],
  [(a) => a.storagePoolDestroy({ pool }), 'storagePoolDestroy', { pool }, () => undefined],
  [(a) => a.storagePoolListAllVolumes({ pool }), 'storagePoolListAllVolumes', { pool, need_results: 1, flags: 0 }, (r: { vols: unknown }) => r.vols],
  [(a) => a.storageVolLookupByName({ pool, name: 'v' }), 'storageVolLookupByName', { pool, name: 'v' }, (r: { vol: unknown }) => r.vol],
  [(a) => a.storageVolCreateXml({ pool, xml: '<volume/>' }), 'storageVolCreateXml', { pool, xml: '<volume/>', flags: 0 }, (r: { vol: unknown }) => r.vol],
  [(a) => a.storageVolDelete({ vol }), 'storageVolDelete', { vol, flags: 0 }, () => undefined],
  [(a) => a.storageVolGetPath({ vol }), 'storageVolGetPath', { vol }, (r: { name: string }) => r.name],
  [(a) => a.storageVolGetInfo({ vol }), 'storageVolGetInfo', { vol }, (r: unknown) => r],
  [(a) => a.storageVolGetXmlDesc({ vol }), 'storageVolGetXmlDesc', { vol, flags: 0 }, (r: { xml: string }) => r.xml],
];

describe('the noun-first wrappers', () => {
  it.each(wrappers.map((w) => [w[1], ...w] as const))('%s sends its procedure and unwraps the reply', async (name, invoke, _n, args, unwrap) => {
    const peer = new FakePeer();
    const api = new LibvirtClient(new RpcConnection(peer.transport));
    const declaration = procedures[name];
    const ret = fc.sample(arbitraryFor(declaration.ret as Shape<unknown>), { numRuns: 1, seed: 7 })[0];
    const result = invoke(api);
    const call = await peer.nextPacket();
    expect(call.header.procedure).toBe(declaration.proc);
    expect(decodeXdr(declaration.args as Shape<unknown>, call.payload)).toEqual(args);
    peer.reply(call, declaration.ret as Shape<unknown>, ret);
    expect(await result).toEqual((unwrap as (r: unknown) => unknown)(ret));
  });

  it('domainGetInfo renames the fields to say their units', async () => {
    const peer = new FakePeer();
    const api = new LibvirtClient(new RpcConnection(peer.transport));
    const result = api.domainGetInfo({ dom });
    const call = await peer.nextPacket();
    peer.reply(call, procedures.domainGetInfo.ret, { state: 1, maxMem: 1048576n, memory: 524288n, nrVirtCpu: 2, cpuTime: 5n });
    expect(await result).toEqual({ state: 1, maxMemKiB: 1048576n, memoryKiB: 524288n, nrVirtCpu: 2, cpuTimeNs: 5n });
  });
});
