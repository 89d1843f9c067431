// The libvirt client: one method per procedure row, named like libvirt's C API
// (virDomainLookupByName -> domainLookupByName), each taking ONE options object. Most are derived
// from the row (calls.ts); the few written here shape a reply (units, stats records), make two
// calls where libvirt's own client does, map an error, or register for events.
import { procedureArgs, resultOf, wrappedNames, type DerivedCalls, type OptionsOf, type ResultOf, type WrappedName } from './calls';
import type { CallOptions, RpcConnection } from './client';
import { openConnection, type OpenOptions } from './connect';
import { domainStatsOf, modelText, type DomainStats, type NodeInfo } from './domain-stats';
import type { DuplexStream } from './duplex-stream';
import { ConsoleBusyError, isLibvirtError } from './errors';
import type { EventSubscription } from './events';
import { DomainEventId, StoragePoolEventId } from './flags';
import { procedures, type Domain, type Interface, type Network, type ProcedureName, type StoragePool, type StorageVol } from './protocol';

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

export type StoragePoolInfo = ResultOf<'storagePoolGetInfo'>;
export type StorageVolInfo = ResultOf<'storageVolGetInfo'>;
export type DomainInterface = ResultOf<'domainInterfaceAddresses'>[number];
export type ConsoleOptions = OptionsOf<'domainOpenConsole'>;

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

export type DomainEventOptions<E> = CallOptions & { listener: (event: E) => void; dom?: Domain | null };
export type PoolEventOptions<E> = CallOptions & { listener: (event: E) => void; pool?: StoragePool | null };

/** The methods written by hand; every other wrapped procedure's method is derived from its row. */
interface HandWritten {
  nodeGetInfo(options?: CallOptions): Promise<NodeInfo>;
  nodeGetCpuStats(options?: FlagsOptions & { cpuNum?: number }): Promise<Record<string, bigint>>;
  nodeGetMemoryStats(options?: FlagsOptions & { cellNum?: number }): Promise<Record<string, bigint>>;
  domainGetInfo(options: CallOptions & { dom: Domain }): Promise<DomainInfo>;
  domainOpenConsole(options: ConsoleOptions): Promise<DuplexStream>;
  connectGetAllDomainStats(options: DomainStatsOptions): Promise<DomainStats[]>;
  connectDomainEventLifecycleRegister(options: DomainEventOptions<DomainLifecycleEvent>): Promise<EventSubscription>;
  connectStoragePoolEventLifecycleRegister(options: PoolEventOptions<StoragePoolLifecycleEvent>): Promise<EventSubscription>;
  connectStoragePoolEventRefreshRegister(options: PoolEventOptions<{ pool: StoragePool }>): Promise<EventSubscription>;
}

/** Every libvirt call of the client: the seam the kvm2 provider and the fake libvirt share. */
export type LibvirtCalls = Omit<DerivedCalls, keyof HandWritten> & HandWritten;
export type LibvirtMethod = keyof LibvirtCalls;

/**
 * Each method and the procedure row it speaks (whose `name` its spans and log lines show, and
 * whose `access` says whether it changes what libvirt stores). Event registrations speak their
 * REGISTER_ANY procedure.
 */
export const libvirtMethods = {
  ...(Object.fromEntries(wrappedNames.map((name) => [name, name])) as { [N in WrappedName]: N }),
  connectDomainEventLifecycleRegister: 'connectDomainEventCallbackRegisterAny',
  connectStoragePoolEventLifecycleRegister: 'connectStoragePoolEventRegisterAny',
  connectStoragePoolEventRefreshRegister: 'connectStoragePoolEventRegisterAny',
} as const satisfies Record<LibvirtMethod, ProcedureName>;

/** Node stats come as named counters: unsigned hyper values keyed by field ("user", "free", ...). */
const nodeStatsRecord = (params: Array<{ field: string; value: bigint }>): Record<string, bigint> =>
  Object.fromEntries(params.map((param) => [param.field, param.value]));

// The derived methods join the hand-written ones on the class (declaration merging: the class
// body cannot list methods generated from a table).
export interface LibvirtClient extends Omit<DerivedCalls, keyof HandWritten> {}

export class LibvirtClient implements HandWritten {
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

  /** virConnectGetAllDomainStats / virDomainListGetStats: one call for every domain's stats. */
  async connectGetAllDomainStats(options: DomainStatsOptions): Promise<DomainStats[]> {
    return (await this.rpc.call('connectGetAllDomainStats', procedureArgs('connectGetAllDomainStats', options), options)).retStats.map(domainStatsOf);
  }

  /** Subscribes to every domain's lifecycle events (REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE). */
  connectDomainEventLifecycleRegister(options: DomainEventOptions<DomainLifecycleEvent>): Promise<EventSubscription> {
    const { listener } = options;
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
  connectStoragePoolEventLifecycleRegister(options: PoolEventOptions<StoragePoolLifecycleEvent>): Promise<EventSubscription> {
    const { listener } = options;
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
  connectStoragePoolEventRefreshRegister(options: PoolEventOptions<{ pool: StoragePool }>): Promise<EventSubscription> {
    const { listener } = options;
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
    const base = procedureArgs('nodeGetCpuStats', { cpuNum: options.cpuNum, flags: options.flags });
    const { nparams } = await this.rpc.call('nodeGetCpuStats', base, options);
    return nodeStatsRecord((await this.rpc.call('nodeGetCpuStats', { ...base, nparams }, options)).params);
  }

  /** virNodeGetMemoryStats: KiB by field (total, free, buffers, cached on Linux); two calls like the CPU's. */
  async nodeGetMemoryStats(options: FlagsOptions & { cellNum?: number } = {}): Promise<Record<string, bigint>> {
    const base = procedureArgs('nodeGetMemoryStats', { cellNum: options.cellNum, flags: options.flags });
    const { nparams } = await this.rpc.call('nodeGetMemoryStats', base, options);
    return nodeStatsRecord((await this.rpc.call('nodeGetMemoryStats', { ...base, nparams }, options)).params);
  }

  async domainGetInfo(options: CallOptions & { dom: Domain }): Promise<DomainInfo> {
    const info = await this.rpc.call('domainGetInfo', procedureArgs('domainGetInfo', options), options);
    return {
      state: info.state,
      maxMemKiB: info.maxMem,
      memoryKiB: info.memory,
      nrVirtCpu: info.nrVirtCpu,
      cpuTimeNs: info.cpuTime,
    };
  }

  /**
   * The domain's serial console as a two-way stream. ConsoleBusyError when another client holds
   * it: opening with DomainConsoleFlags.Force then takes it over.
   */
  async domainOpenConsole(options: ConsoleOptions): Promise<DuplexStream> {
    try {
      return await this.rpc.openDuplex('domainOpenConsole', procedureArgs('domainOpenConsole', options), options);
    } catch (err) {
      // From this procedure, ErrOperationFailed is the qemu driver's "Active console session exists".
      if (isLibvirtError(err, 'ErrOperationFailed')) throw new ConsoleBusyError(err.procedure, err);
      throw err;
    }
  }
}

type AnyOptions = CallOptions & { source?: AsyncIterable<Uint8Array> };

/** The method of a row without a hand-written one: arguments from the options, the row's answer. */
function derivedMethod(name: WrappedName): (this: LibvirtClient, options?: AnyOptions) => unknown {
  const rpcName = name as never;
  switch (procedures[name].stream) {
    case 'upload':
      return function (options = {}) {
        return this.rpc.upload(rpcName, procedureArgs(name, options) as never, options as AnyOptions & { source: AsyncIterable<Uint8Array> });
      };
    case 'download':
      return function (options = {}) {
        return this.rpc.download(rpcName, procedureArgs(name, options) as never, options);
      };
    case 'duplex':
      return function (options = {}) {
        return this.rpc.openDuplex(rpcName, procedureArgs(name, options) as never, options);
      };
    default:
      return async function (options = {}) {
        return resultOf(name, await this.rpc.call(rpcName, procedureArgs(name, options) as never, options));
      };
  }
}

for (const name of wrappedNames) {
  if (Object.hasOwn(LibvirtClient.prototype, name)) continue;
  Object.defineProperty(LibvirtClient.prototype, name, { value: derivedMethod(name), writable: true, configurable: true });
}
