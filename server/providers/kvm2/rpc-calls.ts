// What the budget wrapper (backend.ts), the leader fence (fence.ts) and the observer (observe.ts)
// know about each LibvirtAPI method. The name (go-libvirt's method name, which spans and
// `libvirt call` lines show), whether it writes, and whether it streams come from its procedure
// row; the identifiers come from its options (dom, pool, vol). Only what a row cannot say is
// listed here: identifiers a lookup names by string or its result names, and `detail`, what a
// trace-level line may add. Never a transfer body, cloud-init or key.
import { libvirtMethods, procedures, storagePoolStateWords, type Access, type LibvirtMethod } from '@/server/libvirt';
import type { LibvirtAPI } from './libvirt-api';

export type RpcMethod = LibvirtMethod;

export interface RpcIdentifiers {
  domain?: string;
  pool?: string;
  volume?: string;
}

type Options<M extends RpcMethod> = Parameters<LibvirtAPI[M]>[0];
type Result<M extends RpcMethod> = Awaited<ReturnType<LibvirtAPI[M]>>;

export interface RpcCall<M extends RpcMethod> {
  /** Identifiers named by the options (default: the options' dom, pool and vol). */
  ids?: (options: Options<M>) => RpcIdentifiers;
  /** Identifiers only the result names (a domain just defined, a volume just created). */
  resultIds?: (result: Result<M>) => RpcIdentifiers;
  /** Trace-level fields from the options and, once it arrived, the result. */
  detail?: (options: Options<M>, result: Result<M> | undefined) => Record<string, unknown>;
}

const domainOf = (dom: { name: string }): RpcIdentifiers => ({ domain: dom.name });
const volumeOf = (vol: { pool: string; name: string }): RpcIdentifiers => ({ pool: vol.pool, volume: vol.name });
const transferOf = (options: { offset?: number; length?: number }) => ({ offset: options.offset ?? 0, length: options.length ?? 0 });

/** The identifiers in a call's options: its domain, pool or volume. */
export function identifiersIn(options: unknown): RpcIdentifiers {
  const given = (options ?? {}) as { dom?: { name: string } | null; pool?: { name: string } | null; vol?: { pool: string; name: string } };
  if (given.dom) return domainOf(given.dom);
  if (given.vol) return volumeOf(given.vol);
  if (given.pool) return { pool: given.pool.name };
  return {};
}

export const rpcCalls: { [M in RpcMethod]?: RpcCall<M> } = {
  connectGetLibVersion: { detail: (_options, version) => ({ version }) },
  connectGetHostname: { detail: (_options, hostname) => ({ hypervisorHostname: hostname }) },
  connectGetDomainCapabilities: { detail: (options) => ({ virtType: options?.virttype ?? null }) },
  connectListAllDomains: { detail: (_options, domains) => ({ domains: domains?.map((dom) => dom.name) }) },
  connectListAllStoragePools: { detail: (_options, pools) => ({ pools: pools?.map((pool) => pool.name) }) },
  connectListAllInterfaces: { detail: (_options, ifaces) => ({ interfaces: ifaces?.map((iface) => iface.name) }) },
  connectListAllNetworks: { detail: (_options, nets) => ({ networks: nets?.map((net) => net.name) }) },
  interfaceGetXmlDesc: { detail: (options) => ({ interface: options.iface.name }) },
  networkGetXmlDesc: { detail: (options) => ({ network: options.net.name }) },
  connectGetAllDomainStats: {
    detail: (options, stats) => ({ stats: options.stats, domains: stats?.map((record) => record.dom.name) }),
  },
  // Registrations for events: the subscription they return lives as long as its connection.
  connectDomainEventLifecycleRegister: { detail: (_options, subscription) => ({ event: 'lifecycle', callbackID: subscription?.callbackID }) },
  connectStoragePoolEventLifecycleRegister: { detail: (_options, subscription) => ({ event: 'lifecycle', callbackID: subscription?.callbackID }) },
  connectStoragePoolEventRefreshRegister: { detail: (_options, subscription) => ({ event: 'refresh', callbackID: subscription?.callbackID }) },
  domainLookupByName: { ids: (options) => ({ domain: options.name }) },
  domainDefineXmlFlags: { resultIds: domainOf, detail: (options) => ({ xml: options.xml }) },
  domainGetState: { detail: (_options, state) => ({ state }) },
  domainGetXmlDesc: { detail: (_options, xml) => ({ xml }) },
  domainGetMetadata: { detail: (_options, metadata) => ({ metadata }) },
  domainInterfaceAddresses: {
    detail: (options, ifaces) => ({
      source: options.source,
      addresses: ifaces?.flatMap((iface) => iface.addrs.map((addr) => `${addr.addr}/${addr.prefix}`)),
    }),
  },
  // Only the open: what goes through the console (keystrokes included) is never logged.
  domainOpenConsole: { detail: (options) => ({ flags: options.flags ?? 0 }) },
  storagePoolLookupByName: { ids: (options) => ({ pool: options.name }) },
  storagePoolGetInfo: {
    detail: (_options, info) =>
      info ? { state: storagePoolStateWords[info.state] ?? info.state, capacity: info.capacity, allocation: info.allocation, available: info.available } : {},
  },
  storagePoolListAllVolumes: { detail: (_options, vols) => ({ volumes: vols?.map((vol) => vol.name) }) },
  storageVolLookupByName: { ids: (options) => ({ pool: options.pool.name, volume: options.name }) },
  storageVolCreateXml: { resultIds: volumeOf, detail: (options) => ({ xml: options.xml }) },
  storageVolGetPath: { detail: (_options, path) => ({ path }) },
  storageVolGetInfo: { detail: (_options, info) => (info ? { capacity: info.capacity, allocation: info.allocation } : {}) },
  storageVolGetXmlDesc: { detail: (_options, xml) => ({ xml }) },
  // Transfers report where and how much, never what.
  storageVolUpload: { detail: (options, result) => ({ ...transferOf(options), bytesSent: result?.bytesSent }) },
  storageVolDownload: { detail: (options) => transferOf(options ?? {}) },
};

export const rpcMethods = Object.keys(libvirtMethods) as RpcMethod[];

const rowOf = (method: RpcMethod) => procedures[libvirtMethods[method]];

/** go-libvirt's method name of the procedure `method` speaks (kvm2.<name> spans, `rpc` in log lines). */
export const rpcName = (method: RpcMethod): string => rowOf(method).name;

/** Whether `method` changes what libvirt stores (`write`) or only looks (`read`). */
export const rpcAccessOf = (method: RpcMethod): Access => rowOf(method).access;

/** Whether `method` answers with a download stream (an async iterable), not a promise. */
export const rpcStreamsDown = (method: RpcMethod): boolean => rowOf(method).stream === 'download';
