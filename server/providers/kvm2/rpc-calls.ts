// One row per LibvirtAPI method: what the budget wrapper (backend.ts) and the observer
// (observe.ts) need to know about it. The name is go-libvirt's method name (the C API's, in
// PascalCase), which spans and `libvirt call` lines show; `ids` are the identifiers the call was
// given; `detail` is what a trace-level line may add. Never a transfer body, cloud-init or key.
import { storagePoolStateWords } from '@/server/libvirt';
import type { LibvirtAPI } from './libvirt-api';

export type RpcMethod = keyof LibvirtAPI;

export interface RpcIdentifiers {
  domain?: string;
  pool?: string;
  volume?: string;
}

type Args<M extends RpcMethod> = Parameters<LibvirtAPI[M]>;
type Result<M extends RpcMethod> = Awaited<ReturnType<LibvirtAPI[M]>>;

export interface RpcCall<M extends RpcMethod> {
  name: string;
  /** Position of the options argument (always the last parameter). */
  optionsAt: number;
  /** Identifiers named by the arguments. */
  ids?: (args: Args<M>) => RpcIdentifiers;
  /** Identifiers only the result names (a domain just defined, a volume just created). */
  resultIds?: (result: Result<M>) => RpcIdentifiers;
  /** Trace-level fields from the arguments and, once it arrived, the result. */
  detail?: (args: Args<M>, result: Result<M> | undefined) => Record<string, unknown>;
}

const domainOf = (dom: { name: string }): RpcIdentifiers => ({ domain: dom.name });
const volumeOf = (vol: { pool: string; name: string }): RpcIdentifiers => ({ pool: vol.pool, volume: vol.name });
const poolOf = (pool: { name: string }): RpcIdentifiers => ({ pool: pool.name });
const transferOf = (options: { offset?: number; length?: number }) => ({ offset: options.offset ?? 0, length: options.length ?? 0 });

export const rpcCalls: { [M in RpcMethod]: RpcCall<M> } = {
  connectGetLibVersion: { name: 'ConnectGetLibVersion', optionsAt: 0, detail: (_args, version) => ({ version }) },
  connectGetHostname: { name: 'ConnectGetHostname', optionsAt: 0, detail: (_args, hostname) => ({ hypervisorHostname: hostname }) },
  connectGetDomainCapabilities: {
    name: 'ConnectGetDomainCapabilities',
    optionsAt: 0,
    detail: ([options]) => ({ virtType: options?.virttype ?? null }),
  },
  connectListAllDomains: {
    name: 'ConnectListAllDomains',
    optionsAt: 0,
    detail: (_args, domains) => ({ domains: domains?.map((dom) => dom.name) }),
  },
  connectListAllStoragePools: {
    name: 'ConnectListAllStoragePools',
    optionsAt: 0,
    detail: (_args, pools) => ({ pools: pools?.map((pool) => pool.name) }),
  },
  connectListAllInterfaces: {
    name: 'ConnectListAllInterfaces',
    optionsAt: 0,
    detail: (_args, ifaces) => ({ interfaces: ifaces?.map((iface) => iface.name) }),
  },
  connectListAllNetworks: {
    name: 'ConnectListAllNetworks',
    optionsAt: 0,
    detail: (_args, nets) => ({ networks: nets?.map((net) => net.name) }),
  },
  interfaceGetXmlDesc: { name: 'InterfaceGetXMLDesc', optionsAt: 1, detail: ([iface]) => ({ interface: iface.name }) },
  networkGetXmlDesc: { name: 'NetworkGetXMLDesc', optionsAt: 1, detail: ([net]) => ({ network: net.name }) },
  connectGetAllDomainStats: {
    name: 'ConnectGetAllDomainStats',
    optionsAt: 0,
    detail: ([options], stats) => ({ stats: options.stats, domains: stats?.map((record) => record.dom.name) }),
  },
  // Registrations for events: the subscription they return lives as long as its connection.
  connectDomainEventLifecycleRegister: {
    name: 'ConnectDomainEventCallbackRegisterAny',
    optionsAt: 1,
    detail: (_args, subscription) => ({ event: 'lifecycle', callbackID: subscription?.callbackID }),
  },
  connectStoragePoolEventLifecycleRegister: {
    name: 'ConnectStoragePoolEventRegisterAny',
    optionsAt: 1,
    detail: (_args, subscription) => ({ event: 'lifecycle', callbackID: subscription?.callbackID }),
  },
  connectStoragePoolEventRefreshRegister: {
    name: 'ConnectStoragePoolEventRegisterAny',
    optionsAt: 1,
    detail: (_args, subscription) => ({ event: 'refresh', callbackID: subscription?.callbackID }),
  },
  nodeGetInfo: { name: 'NodeGetInfo', optionsAt: 0 },
  nodeGetCpuStats: { name: 'NodeGetCPUStats', optionsAt: 0 },
  nodeGetMemoryStats: { name: 'NodeGetMemoryStats', optionsAt: 0 },
  domainLookupByName: { name: 'DomainLookupByName', optionsAt: 1, ids: ([name]) => ({ domain: name }) },
  domainDefineXmlFlags: {
    name: 'DomainDefineXMLFlags',
    optionsAt: 1,
    resultIds: domainOf,
    detail: ([xml]) => ({ xml }),
  },
  domainCreate: { name: 'DomainCreate', optionsAt: 1, ids: ([dom]) => domainOf(dom) },
  domainDestroy: { name: 'DomainDestroy', optionsAt: 1, ids: ([dom]) => domainOf(dom) },
  domainUndefineFlags: { name: 'DomainUndefineFlags', optionsAt: 1, ids: ([dom]) => domainOf(dom) },
  domainGetState: { name: 'DomainGetState', optionsAt: 1, ids: ([dom]) => domainOf(dom), detail: (_args, state) => ({ state }) },
  domainGetXmlDesc: { name: 'DomainGetXMLDesc', optionsAt: 1, ids: ([dom]) => domainOf(dom), detail: (_args, xml) => ({ xml }) },
  domainGetMetadata: {
    name: 'DomainGetMetadata',
    optionsAt: 1,
    ids: ([dom]) => domainOf(dom),
    detail: (_args, metadata) => ({ metadata }),
  },
  domainInterfaceAddresses: {
    name: 'DomainInterfaceAddresses',
    optionsAt: 1,
    ids: ([dom]) => domainOf(dom),
    detail: ([, options], ifaces) => ({
      source: options.source,
      addresses: ifaces?.flatMap((iface) => iface.addrs.map((addr) => `${addr.addr}/${addr.prefix}`)),
    }),
  },
  // Only the open: what goes through the console (keystrokes included) is never logged.
  domainOpenConsole: {
    name: 'DomainOpenConsole',
    optionsAt: 1,
    ids: ([dom]) => domainOf(dom),
    detail: ([, options]) => ({ flags: options?.flags ?? 0 }),
  },
  storagePoolLookupByName: { name: 'StoragePoolLookupByName', optionsAt: 1, ids: ([name]) => ({ pool: name }) },
  storagePoolGetInfo: {
    name: 'StoragePoolGetInfo',
    optionsAt: 1,
    ids: ([pool]) => poolOf(pool),
    detail: (_args, info) =>
      info ? { state: storagePoolStateWords[info.state] ?? info.state, capacity: info.capacity, allocation: info.allocation, available: info.available } : {},
  },
  storagePoolRefresh: { name: 'StoragePoolRefresh', optionsAt: 1, ids: ([pool]) => poolOf(pool) },
  storagePoolListAllVolumes: {
    name: 'StoragePoolListAllVolumes',
    optionsAt: 1,
    ids: ([pool]) => poolOf(pool),
    detail: (_args, vols) => ({ volumes: vols?.map((vol) => vol.name) }),
  },
  storageVolLookupByName: {
    name: 'StorageVolLookupByName',
    optionsAt: 1,
    ids: ([target]) => ({ pool: target.pool.name, volume: target.name }),
  },
  storageVolCreateXml: {
    name: 'StorageVolCreateXML',
    optionsAt: 1,
    ids: ([target]) => poolOf(target.pool),
    resultIds: volumeOf,
    detail: ([target]) => ({ xml: target.xml }),
  },
  storageVolDelete: { name: 'StorageVolDelete', optionsAt: 1, ids: ([vol]) => volumeOf(vol) },
  storageVolGetPath: { name: 'StorageVolGetPath', optionsAt: 1, ids: ([vol]) => volumeOf(vol), detail: (_args, path) => ({ path }) },
  storageVolGetInfo: {
    name: 'StorageVolGetInfo',
    optionsAt: 1,
    ids: ([vol]) => volumeOf(vol),
    detail: (_args, info) => (info ? { capacity: info.capacity, allocation: info.allocation } : {}),
  },
  storageVolGetXmlDesc: {
    name: 'StorageVolGetXMLDesc',
    optionsAt: 1,
    ids: ([vol]) => volumeOf(vol),
    detail: (_args, xml) => ({ xml }),
  },
  // Transfers report where and how much, never what.
  storageVolUpload: {
    name: 'StorageVolUpload',
    optionsAt: 1,
    ids: ([vol]) => volumeOf(vol),
    detail: ([, options], result) => ({ ...transferOf(options), bytesSent: result?.bytesSent }),
  },
  storageVolDownload: {
    name: 'StorageVolDownload',
    optionsAt: 1,
    ids: ([vol]) => volumeOf(vol),
    detail: ([, options]) => transferOf(options ?? {}),
  },
};

export const rpcMethods = Object.keys(rpcCalls) as RpcMethod[];
