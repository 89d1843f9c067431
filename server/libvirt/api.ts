// Noun-first typed wrappers over the procedure table, named like libvirt's C API
// (virDomainLookupByName -> domainLookupByName). Each takes at most a subject and an options
// object (flags plus the call's signal and budget) and returns the useful part of the reply.
import type { CallOptions, RpcConnection } from './client';
import { openConnection, type OpenOptions } from './connect';
import { domainStatsOf, modelText, type DomainStats, type NodeInfo } from './domain-stats';
import type { DuplexOptions, DuplexStream } from './duplex-stream';
import { ConsoleBusyError, isLibvirtError } from './errors';
import type { EventSubscription } from './events';
import { DomainEventId, NODE_STATS_ALL, StoragePoolEventId } from './flags';
import type { Domain, Interface, Network, StoragePool, StorageVol } from './protocol';
import type { DownloadOptions, UploadOptions, UploadResult } from './stream';

export type { Domain, DomainStats, DuplexStream, EventSubscription, Interface, Network, NodeInfo, StoragePool, StorageVol };

export interface FlagsOptions extends CallOptions {
  flags?: number;
}

export interface DomainInfo {
  state: number;
  maxMemKiB: bigint;
  memoryKiB: bigint;
  nrVirtCpu: number;
  cpuTimeNs: bigint;
}

export interface StoragePoolInfo {
  state: number;
  capacity: number;
  allocation: number;
  available: number;
}

export interface StorageVolInfo {
  type: number;
  capacity: number;
  allocation: number;
}

export interface DomainInterface {
  name: string;
  hwaddr: string | null;
  addrs: Array<{ type: number; addr: string; prefix: number }>;
}

export interface MetadataOptions extends FlagsOptions {
  /** virDomainMetadataType; DomainMetadataType.Element for a namespaced element. */
  type: number;
  /** The element's namespace URI (for Element). */
  uri?: string | null;
}

export interface SetMetadataOptions extends MetadataOptions {
  /** The XML to store, or null to remove it. */
  metadata: string | null;
  /** The namespace prefix the element is stored under (for Element). */
  key?: string | null;
}

export interface DomainCapabilitiesOptions extends FlagsOptions {
  emulatorbin?: string | null;
  arch?: string | null;
  machine?: string | null;
  virttype?: string | null;
}

export interface VolTransferOptions {
  offset?: number;
  /** 0 means to the end. */
  length?: number;
  flags?: number;
}

export interface DomainStatsOptions extends FlagsOptions {
  /** DomainStatsTypes bits; 0 asks for every group the daemon has. */
  stats: number;
  /** Only these domains; empty or absent: every domain the flags select. */
  doms?: Domain[];
}

/** A domain's lifecycle change: `event` is DomainEventType, `detail` its *Detail value. */
export interface DomainLifecycleEvent {
  dom: Domain;
  event: number;
  detail: number;
}

/** A storage pool's lifecycle change: `event` is StoragePoolEventType. */
export interface StoragePoolLifecycleEvent {
  pool: StoragePool;
  event: number;
  detail: number;
}

export interface ConsoleOptions extends DuplexOptions {
  /** The console device alias; null or absent: the domain's first console. */
  devName?: string | null;
  /** DomainConsoleFlags. */
  flags?: number;
}

const flagsOf = (options: FlagsOptions): number => options.flags ?? 0;

/** Node stats come as named counters: unsigned hyper values keyed by field ("user", "free", ...). */
const nodeStatsRecord = (params: Array<{ field: string; value: bigint }>): Record<string, bigint> =>
  Object.fromEntries(params.map((param) => [param.field, param.value]));

export class LibvirtClient {
  constructor(readonly rpc: RpcConnection) {}

  /** Dials, authenticates and opens `uri`; see connect.ts. */
  static async open(options: OpenOptions): Promise<LibvirtClient> {
    return new LibvirtClient(await openConnection(options));
  }

  get alive(): boolean {
    return this.rpc.alive;
  }

  close(options?: CallOptions): Promise<void> {
    return this.rpc.close(options);
  }

  // ---- connect ----------------------------------------------------------------------------------

  async connectGetLibVersion(options: CallOptions = {}): Promise<number> {
    return (await this.rpc.call('connectGetLibVersion', undefined, options)).lib_ver;
  }

  async connectGetHostname(options: CallOptions = {}): Promise<string> {
    return (await this.rpc.call('connectGetHostname', undefined, options)).hostname;
  }

  async connectGetCapabilities(options: CallOptions = {}): Promise<string> {
    return (await this.rpc.call('connectGetCapabilities', undefined, options)).capabilities;
  }

  async connectGetDomainCapabilities(options: DomainCapabilitiesOptions = {}): Promise<string> {
    const args = {
      emulatorbin: options.emulatorbin ?? null,
      arch: options.arch ?? null,
      machine: options.machine ?? null,
      virttype: options.virttype ?? null,
      flags: flagsOf(options),
    };
    return (await this.rpc.call('connectGetDomainCapabilities', args, options)).capabilities;
  }

  async connectListAllDomains(options: FlagsOptions = {}): Promise<Domain[]> {
    return (await this.rpc.call('connectListAllDomains', { need_results: 1, flags: flagsOf(options) }, options)).domains;
  }

  async connectListAllStoragePools(options: FlagsOptions = {}): Promise<StoragePool[]> {
    return (await this.rpc.call('connectListAllStoragePools', { need_results: 1, flags: flagsOf(options) }, options)).pools;
  }

  async connectListAllNetworks(options: FlagsOptions = {}): Promise<Network[]> {
    return (await this.rpc.call('connectListAllNetworks', { need_results: 1, flags: flagsOf(options) }, options)).nets;
  }

  /** The host's network interfaces; hosts without libvirt's interface driver answer ErrNoSupport. */
  async connectListAllInterfaces(options: FlagsOptions = {}): Promise<Interface[]> {
    return (await this.rpc.call('connectListAllInterfaces', { need_results: 1, flags: flagsOf(options) }, options)).ifaces;
  }

  async networkGetXmlDesc(net: Network, options: FlagsOptions = {}): Promise<string> {
    return (await this.rpc.call('networkGetXmlDesc', { net, flags: flagsOf(options) }, options)).xml;
  }

  async interfaceGetXmlDesc(iface: Interface, options: FlagsOptions = {}): Promise<string> {
    return (await this.rpc.call('interfaceGetXmlDesc', { iface, flags: flagsOf(options) }, options)).xml;
  }

  /** virConnectGetAllDomainStats / virDomainListGetStats: one call for every domain's stats. */
  async connectGetAllDomainStats(options: DomainStatsOptions): Promise<DomainStats[]> {
    const args = { doms: options.doms ?? [], stats: options.stats, flags: flagsOf(options) };
    return (await this.rpc.call('connectGetAllDomainStats', args, options)).retStats.map(domainStatsOf);
  }

  /** Subscribes to every domain's lifecycle events (REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE). */
  connectDomainEventLifecycleRegister(
    listener: (event: DomainLifecycleEvent) => void,
    options: CallOptions & { dom?: Domain | null } = {},
  ): Promise<EventSubscription> {
    return this.rpc.subscribe(
      {
        register: 'connectDomainEventCallbackRegisterAny',
        args: { eventID: DomainEventId.Lifecycle, dom: options.dom ?? null },
        deregister: 'connectDomainEventCallbackDeregisterAny',
        event: 'domainEventCallbackLifecycle',
        listener: ({ msg }) => listener(msg),
      },
      options,
    );
  }

  /** Subscribes to storage pools being defined, started, stopped, deleted, ... */
  connectStoragePoolEventLifecycleRegister(
    listener: (event: StoragePoolLifecycleEvent) => void,
    options: CallOptions & { pool?: StoragePool | null } = {},
  ): Promise<EventSubscription> {
    return this.rpc.subscribe(
      {
        register: 'connectStoragePoolEventRegisterAny',
        args: { eventID: StoragePoolEventId.Lifecycle, pool: options.pool ?? null },
        deregister: 'connectStoragePoolEventDeregisterAny',
        event: 'storagePoolEventLifecycle',
        listener: ({ pool, event, detail }) => listener({ pool, event, detail }),
      },
      options,
    );
  }

  /** Subscribes to storage pool refreshes (virStoragePoolRefresh, or a volume created or deleted). */
  connectStoragePoolEventRefreshRegister(
    listener: (event: { pool: StoragePool }) => void,
    options: CallOptions & { pool?: StoragePool | null } = {},
  ): Promise<EventSubscription> {
    return this.rpc.subscribe(
      {
        register: 'connectStoragePoolEventRegisterAny',
        args: { eventID: StoragePoolEventId.Refresh, pool: options.pool ?? null },
        deregister: 'connectStoragePoolEventDeregisterAny',
        event: 'storagePoolEventRefresh',
        listener: ({ pool }) => listener({ pool }),
      },
      options,
    );
  }

  // ---- node -------------------------------------------------------------------------------------

  async nodeGetInfo(options: CallOptions = {}): Promise<NodeInfo> {
    const info = await this.rpc.call('nodeGetInfo', undefined, options);
    const { memory, cpus, mhz, nodes, sockets, cores, threads } = info;
    return { model: modelText(info.model), memoryKiB: memory, cpus, mhz, nodes, sockets, cores, threads };
  }

  /**
   * virNodeGetCPUStats: cumulative nanoseconds by field (user, kernel, idle, iowait on Linux) for
   * one CPU or all (cpuNum -1). Two calls, as libvirt's own client makes: the count, then the values.
   */
  async nodeGetCpuStats(options: FlagsOptions & { cpuNum?: number } = {}): Promise<Record<string, bigint>> {
    const base = { cpuNum: options.cpuNum ?? NODE_STATS_ALL, flags: flagsOf(options) };
    const { nparams } = await this.rpc.call('nodeGetCpuStats', { ...base, nparams: 0 }, options);
    return nodeStatsRecord((await this.rpc.call('nodeGetCpuStats', { ...base, nparams }, options)).params);
  }

  /** virNodeGetMemoryStats: KiB by field (total, free, buffers, cached on Linux); two calls like the CPU's. */
  async nodeGetMemoryStats(options: FlagsOptions & { cellNum?: number } = {}): Promise<Record<string, bigint>> {
    const base = { cellNum: options.cellNum ?? NODE_STATS_ALL, flags: flagsOf(options) };
    const { nparams } = await this.rpc.call('nodeGetMemoryStats', { ...base, nparams: 0 }, options);
    return nodeStatsRecord((await this.rpc.call('nodeGetMemoryStats', { ...base, nparams }, options)).params);
  }

  // ---- domain -----------------------------------------------------------------------------------

  async domainLookupByName(name: string, options: CallOptions = {}): Promise<Domain> {
    return (await this.rpc.call('domainLookupByName', { name }, options)).dom;
  }

  async domainDefineXmlFlags(xml: string, options: FlagsOptions = {}): Promise<Domain> {
    return (await this.rpc.call('domainDefineXmlFlags', { xml, flags: flagsOf(options) }, options)).dom;
  }

  async domainCreate(dom: Domain, options: CallOptions = {}): Promise<void> {
    await this.rpc.call('domainCreate', { dom }, options);
  }

  async domainDestroy(dom: Domain, options: CallOptions = {}): Promise<void> {
    await this.rpc.call('domainDestroy', { dom }, options);
  }

  async domainUndefineFlags(dom: Domain, options: FlagsOptions = {}): Promise<void> {
    await this.rpc.call('domainUndefineFlags', { dom, flags: flagsOf(options) }, options);
  }

  async domainGetState(dom: Domain, options: FlagsOptions = {}): Promise<{ state: number; reason: number }> {
    return this.rpc.call('domainGetState', { dom, flags: flagsOf(options) }, options);
  }

  async domainGetInfo(dom: Domain, options: CallOptions = {}): Promise<DomainInfo> {
    const info = await this.rpc.call('domainGetInfo', { dom }, options);
    return {
      state: info.state,
      maxMemKiB: info.maxMem,
      memoryKiB: info.memory,
      nrVirtCpu: info.nrVirtCpu,
      cpuTimeNs: info.cpuTime,
    };
  }

  async domainGetXmlDesc(dom: Domain, options: FlagsOptions = {}): Promise<string> {
    return (await this.rpc.call('domainGetXmlDesc', { dom, flags: flagsOf(options) }, options)).xml;
  }

  async domainGetMetadata(dom: Domain, options: MetadataOptions): Promise<string> {
    const args = { dom, type: options.type, uri: options.uri ?? null, flags: flagsOf(options) };
    return (await this.rpc.call('domainGetMetadata', args, options)).metadata;
  }

  async domainSetMetadata(dom: Domain, options: SetMetadataOptions): Promise<void> {
    const args = {
      dom,
      type: options.type,
      metadata: options.metadata,
      key: options.key ?? null,
      uri: options.uri ?? null,
      flags: flagsOf(options),
    };
    await this.rpc.call('domainSetMetadata', args, options);
  }

  async domainInterfaceAddresses(dom: Domain, options: FlagsOptions & { source: number }): Promise<DomainInterface[]> {
    const args = { dom, source: options.source, flags: flagsOf(options) };
    return (await this.rpc.call('domainInterfaceAddresses', args, options)).ifaces;
  }

  /**
   * The domain's serial console as a two-way stream. ConsoleBusyError when another client holds
   * it: opening with DomainConsoleFlags.Force then takes it over.
   */
  async domainOpenConsole(dom: Domain, options: ConsoleOptions = {}): Promise<DuplexStream> {
    const args = { dom, dev_name: options.devName ?? null, flags: options.flags ?? 0 };
    try {
      return await this.rpc.openDuplex('domainOpenConsole', args, options);
    } catch (err) {
      // From this procedure, ErrOperationFailed is the qemu driver's "Active console session exists".
      if (isLibvirtError(err, 'ErrOperationFailed')) throw new ConsoleBusyError(err.procedure, err);
      throw err;
    }
  }

  // ---- storage pool -----------------------------------------------------------------------------

  async storagePoolLookupByName(name: string, options: CallOptions = {}): Promise<StoragePool> {
    return (await this.rpc.call('storagePoolLookupByName', { name }, options)).pool;
  }

  storagePoolGetInfo(pool: StoragePool, options: CallOptions = {}): Promise<StoragePoolInfo> {
    return this.rpc.call('storagePoolGetInfo', { pool }, options);
  }

  async storagePoolRefresh(pool: StoragePool, options: FlagsOptions = {}): Promise<void> {
    await this.rpc.call('storagePoolRefresh', { pool, flags: flagsOf(options) }, options);
  }

  async storagePoolGetXmlDesc(pool: StoragePool, options: FlagsOptions = {}): Promise<string> {
    return (await this.rpc.call('storagePoolGetXmlDesc', { pool, flags: flagsOf(options) }, options)).xml;
  }

  /** virStoragePoolCreate: starts a defined pool. */
  async storagePoolCreate(pool: StoragePool, options: FlagsOptions = {}): Promise<void> {
    await this.rpc.call('storagePoolCreate', { pool, flags: flagsOf(options) }, options);
  }

  /** virStoragePoolDestroy: stops a pool (its volumes stay). */
  async storagePoolDestroy(pool: StoragePool, options: CallOptions = {}): Promise<void> {
    await this.rpc.call('storagePoolDestroy', { pool }, options);
  }

  async storagePoolListAllVolumes(pool: StoragePool, options: FlagsOptions = {}): Promise<StorageVol[]> {
    const args = { pool, need_results: 1, flags: flagsOf(options) };
    return (await this.rpc.call('storagePoolListAllVolumes', args, options)).vols;
  }

  // ---- storage volume ---------------------------------------------------------------------------

  async storageVolLookupByName(target: { pool: StoragePool; name: string }, options: CallOptions = {}): Promise<StorageVol> {
    return (await this.rpc.call('storageVolLookupByName', target, options)).vol;
  }

  async storageVolCreateXml(target: { pool: StoragePool; xml: string }, options: FlagsOptions = {}): Promise<StorageVol> {
    const args = { pool: target.pool, xml: target.xml, flags: flagsOf(options) };
    return (await this.rpc.call('storageVolCreateXml', args, options)).vol;
  }

  async storageVolDelete(vol: StorageVol, options: FlagsOptions = {}): Promise<void> {
    await this.rpc.call('storageVolDelete', { vol, flags: flagsOf(options) }, options);
  }

  async storageVolGetPath(vol: StorageVol, options: CallOptions = {}): Promise<string> {
    return (await this.rpc.call('storageVolGetPath', { vol }, options)).name;
  }

  storageVolGetInfo(vol: StorageVol, options: CallOptions = {}): Promise<StorageVolInfo> {
    return this.rpc.call('storageVolGetInfo', { vol }, options);
  }

  async storageVolGetXmlDesc(vol: StorageVol, options: FlagsOptions = {}): Promise<string> {
    return (await this.rpc.call('storageVolGetXmlDesc', { vol, flags: flagsOf(options) }, options)).xml;
  }

  /** Streams `source` into the volume; see stream.ts for backpressure and source errors. */
  storageVolUpload(vol: StorageVol, options: UploadOptions & VolTransferOptions & { source: AsyncIterable<Uint8Array> }): Promise<UploadResult> {
    const args = { vol, offset: options.offset ?? 0, length: options.length ?? 0, flags: options.flags ?? 0 };
    return this.rpc.upload('storageVolUpload', args, options);
  }

  /** The volume's bytes as an async iterable; the call is made on the first iteration. */
  storageVolDownload(vol: StorageVol, options: DownloadOptions & VolTransferOptions = {}): AsyncIterable<Buffer> {
    const args = { vol, offset: options.offset ?? 0, length: options.length ?? 0, flags: options.flags ?? 0 };
    return this.rpc.download('storageVolDownload', args, options);
  }
}
