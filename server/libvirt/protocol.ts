// The remote program (src/remote/remote_protocol.x): data types and the procedures this client
// speaks, each declared once as number + argument shape + return shape. Field names are the .x
// names, so a shape can be checked against the .x file line by line. The client is generic over
// this table; api.ts gives the procedures friendly signatures.
import { MessageStatus, type MessageHeader, type MessageStatusValue, type MessageTypeValue } from './net-protocol';
import {
  xdrArray,
  xdrDouble,
  xdrFixedArray,
  xdrHyper,
  xdrInt,
  xdrOpaque,
  xdrOptional,
  xdrString,
  xdrStruct,
  xdrUhyper,
  xdrUhyperNumber,
  xdrUint,
  xdrUnion,
  xdrVoid,
  type Shape,
  type ShapeValue,
} from './xdr';

export const REMOTE_PROGRAM = 0x20008086;
export const REMOTE_PROTOCOL_VERSION = 1;

// ---- shared data types ------------------------------------------------------------------------

const REMOTE_STRING_MAX = 4194304;
const REMOTE_DOMAIN_LIST_MAX = 16384;
const REMOTE_STORAGE_POOL_LIST_MAX = 4096;
const REMOTE_STORAGE_VOL_LIST_MAX = 16384;
const REMOTE_NETWORK_LIST_MAX = 16384;
const REMOTE_INTERFACE_LIST_MAX = 16384;
const REMOTE_AUTH_TYPE_LIST_MAX = 20;
const REMOTE_DOMAIN_INTERFACE_MAX = 2048;
const REMOTE_DOMAIN_IP_ADDR_MAX = 2048;
const VIR_UUID_BUFLEN = 16;
const REMOTE_NODE_CPU_STATS_MAX = 16;
const REMOTE_NODE_MEMORY_STATS_MAX = 16;
const REMOTE_CONNECT_GET_ALL_DOMAIN_STATS_MAX = 4096;

export const nonnullString = xdrString(REMOTE_STRING_MAX); // remote_nonnull_string
export const optionalString = xdrOptional(nonnullString); // remote_string
export const uuid = xdrOpaque(VIR_UUID_BUFLEN); // remote_uuid

export const nonnullDomain = xdrStruct({ name: nonnullString, uuid, id: xdrInt }); // remote_nonnull_domain
export const nonnullStoragePool = xdrStruct({ name: nonnullString, uuid }); // remote_nonnull_storage_pool
// remote_nonnull_storage_vol
export const nonnullStorageVol = xdrStruct({ pool: nonnullString, name: nonnullString, key: nonnullString });

export const nonnullNetwork = xdrStruct({ name: nonnullString, uuid }); // remote_nonnull_network
export const nonnullInterface = xdrStruct({ name: nonnullString, mac: nonnullString }); // remote_nonnull_interface

export const optionalDomain = xdrOptional(nonnullDomain); // remote_domain
export const optionalStoragePool = xdrOptional(nonnullStoragePool); // remote_storage_pool

/** virTypedParameterType: the discriminant of remote_typed_param_value. */
export const TypedParamType = { Int: 1, Uint: 2, Llong: 3, Ullong: 4, Double: 5, Boolean: 6, String: 7 } as const;

// union remote_typed_param_value switch (int type)
const typedParamValue = xdrUnion({
  [TypedParamType.Int]: xdrInt,
  [TypedParamType.Uint]: xdrUint,
  [TypedParamType.Llong]: xdrHyper,
  [TypedParamType.Ullong]: xdrUhyper,
  [TypedParamType.Double]: xdrDouble,
  [TypedParamType.Boolean]: xdrInt,
  [TypedParamType.String]: nonnullString,
});
export const typedParam = xdrStruct({ field: nonnullString, value: typedParamValue }); // remote_typed_param
// remote_node_get_cpu_stats and remote_node_get_memory_stats (identical)
const nodeStatsParam = xdrStruct({ field: nonnullString, value: xdrUhyper });

export type Domain = ShapeValue<typeof nonnullDomain>;
export type TypedParam = ShapeValue<typeof typedParam>;
export type StoragePool = ShapeValue<typeof nonnullStoragePool>;
export type StorageVol = ShapeValue<typeof nonnullStorageVol>;
export type Network = ShapeValue<typeof nonnullNetwork>;
export type Interface = ShapeValue<typeof nonnullInterface>;

/** enum remote_auth_type */
export const AuthType = { None: 0, Sasl: 1, Polkit: 2 } as const;

const domainIpAddr = xdrStruct({ type: xdrInt, addr: nonnullString, prefix: xdrUint }); // remote_domain_ip_addr
// remote_domain_interface
const domainInterface = xdrStruct({
  name: nonnullString,
  hwaddr: optionalString,
  addrs: xdrArray(domainIpAddr, REMOTE_DOMAIN_IP_ADDR_MAX),
});

const domArgs = xdrStruct({ dom: nonnullDomain });
const domFlagsArgs = xdrStruct({ dom: nonnullDomain, flags: xdrUint });
const poolArgs = xdrStruct({ pool: nonnullStoragePool });
const poolFlagsArgs = xdrStruct({ pool: nonnullStoragePool, flags: xdrUint });
const volArgs = xdrStruct({ vol: nonnullStorageVol });
const volFlagsArgs = xdrStruct({ vol: nonnullStorageVol, flags: xdrUint });
const nameArgs = xdrStruct({ name: nonnullString });
const xmlRet = xdrStruct({ xml: nonnullString });
const domRet = xdrStruct({ dom: nonnullDomain });
const poolRet = xdrStruct({ pool: nonnullStoragePool });
const volRet = xdrStruct({ vol: nonnullStorageVol });
const listAllArgs = xdrStruct({ need_results: xdrInt, flags: xdrUint });
// struct remote_storage_vol_upload_args and remote_storage_vol_download_args (identical)
const volTransferArgs = xdrStruct({
  vol: nonnullStorageVol,
  offset: xdrUhyperNumber,
  length: xdrUhyperNumber,
  flags: xdrUint,
});

// ---- the procedure table ----------------------------------------------------------------------

/** writestream, readstream, or both at once (a console: keystrokes in, output out). */
export type StreamDirection = 'upload' | 'download' | 'duplex';

export interface Procedure<A, R> {
  /** REMOTE_PROC_* number. */
  readonly proc: number;
  readonly args: Shape<A>;
  readonly ret: Shape<R>;
  /** writestream (upload), readstream (download), or a console's two-way stream (duplex). */
  readonly stream?: StreamDirection;
}

function declare<A, R>(proc: number, args: Shape<A>, ret: Shape<R>): Procedure<A, R>;
function declare<A, R, S extends StreamDirection>(proc: number, args: Shape<A>, ret: Shape<R>, stream: S): Procedure<A, R> & { readonly stream: S };
function declare<A, R>(proc: number, args: Shape<A>, ret: Shape<R>, stream?: StreamDirection): Procedure<A, R> {
  return stream ? { proc, args, ret, stream } : { proc, args, ret };
}

export const procedures = {
  // remote_connect_open_args -> void
  connectOpen: declare(1, xdrStruct({ name: optionalString, flags: xdrUint }), xdrVoid),
  // void -> void
  connectClose: declare(2, xdrVoid, xdrVoid),
  // void -> remote_node_get_info_ret (char model[32]: each char a 4-byte int on the wire)
  nodeGetInfo: declare(
    6,
    xdrVoid,
    xdrStruct({
      model: xdrFixedArray(xdrInt, 32),
      memory: xdrUhyper,
      cpus: xdrInt,
      mhz: xdrInt,
      nodes: xdrInt,
      sockets: xdrInt,
      cores: xdrInt,
      threads: xdrInt,
    }),
  ),
  // void -> remote_connect_get_capabilities_ret
  connectGetCapabilities: declare(7, xdrVoid, xdrStruct({ capabilities: nonnullString })),
  // remote_domain_get_xml_desc_args -> remote_domain_get_xml_desc_ret
  domainGetXmlDesc: declare(14, domFlagsArgs, xmlRet),
  // remote_domain_create_args -> void
  domainCreate: declare(9, domArgs, xdrVoid),
  // remote_domain_destroy_args -> void
  domainDestroy: declare(12, domArgs, xdrVoid),
  // remote_network_get_xml_desc_args -> remote_network_get_xml_desc_ret
  networkGetXmlDesc: declare(43, xdrStruct({ net: nonnullNetwork, flags: xdrUint }), xmlRet),
  // remote_domain_get_info_args -> remote_domain_get_info_ret (unsigned char/short travel as u_int)
  domainGetInfo: declare(16, domArgs, xdrStruct({ state: xdrUint, maxMem: xdrUhyper, memory: xdrUhyper, nrVirtCpu: xdrUint, cpuTime: xdrUhyper })),
  // remote_domain_lookup_by_name_args -> remote_domain_lookup_by_name_ret
  domainLookupByName: declare(23, nameArgs, domRet),
  // void -> remote_connect_get_hostname_ret
  connectGetHostname: declare(59, xdrVoid, xdrStruct({ hostname: nonnullString })),
  // void -> remote_auth_list_ret (remote_auth_type is an enum: an int on the wire)
  authList: declare(66, xdrVoid, xdrStruct({ types: xdrArray(xdrInt, REMOTE_AUTH_TYPE_LIST_MAX) })),
  // void -> remote_auth_polkit_ret
  authPolkit: declare(70, xdrVoid, xdrStruct({ complete: xdrInt })),
  // remote_interface_get_xml_desc_args -> remote_interface_get_xml_desc_ret
  interfaceGetXmlDesc: declare(130, xdrStruct({ iface: nonnullInterface, flags: xdrUint }), xmlRet),
  // remote_storage_pool_create_args -> void
  storagePoolCreate: declare(78, poolFlagsArgs, xdrVoid),
  // remote_storage_pool_destroy_args -> void
  storagePoolDestroy: declare(80, poolArgs, xdrVoid),
  // remote_storage_pool_refresh_args -> void
  storagePoolRefresh: declare(83, poolFlagsArgs, xdrVoid),
  // remote_storage_pool_lookup_by_name_args -> remote_storage_pool_lookup_by_name_ret
  storagePoolLookupByName: declare(84, nameArgs, poolRet),
  // remote_storage_pool_get_info_args -> remote_storage_pool_get_info_ret (unsigned char state: u_int)
  storagePoolGetInfo: declare(87, poolArgs, xdrStruct({ state: xdrUint, capacity: xdrUhyperNumber, allocation: xdrUhyperNumber, available: xdrUhyperNumber })),
  // remote_storage_pool_get_xml_desc_args -> remote_storage_pool_get_xml_desc_ret
  storagePoolGetXmlDesc: declare(88, poolFlagsArgs, xmlRet),
  // remote_storage_vol_create_xml_args -> remote_storage_vol_create_xml_ret
  storageVolCreateXml: declare(93, xdrStruct({ pool: nonnullStoragePool, xml: nonnullString, flags: xdrUint }), volRet),
  // remote_storage_vol_delete_args -> void
  storageVolDelete: declare(94, volFlagsArgs, xdrVoid),
  // remote_storage_vol_lookup_by_name_args -> remote_storage_vol_lookup_by_name_ret
  storageVolLookupByName: declare(95, xdrStruct({ pool: nonnullStoragePool, name: nonnullString }), volRet),
  // remote_storage_vol_get_info_args -> remote_storage_vol_get_info_ret (char type: an int)
  storageVolGetInfo: declare(98, volArgs, xdrStruct({ type: xdrInt, capacity: xdrUhyperNumber, allocation: xdrUhyperNumber })),
  // remote_storage_vol_get_xml_desc_args -> remote_storage_vol_get_xml_desc_ret
  storageVolGetXmlDesc: declare(99, volFlagsArgs, xmlRet),
  // remote_storage_vol_get_path_args -> remote_storage_vol_get_path_ret
  storageVolGetPath: declare(100, volArgs, xdrStruct({ name: nonnullString })),
  // void -> remote_connect_get_lib_version_ret
  connectGetLibVersion: declare(157, xdrVoid, xdrStruct({ lib_ver: xdrUhyperNumber })),
  // remote_domain_open_console_args -> void, then a stream both ways (the .x says readstream)
  domainOpenConsole: declare(201, xdrStruct({ dom: nonnullDomain, dev_name: optionalString, flags: xdrUint }), xdrVoid, 'duplex'),
  // remote_storage_vol_upload_args -> void, then a writestream
  storageVolUpload: declare(208, volTransferArgs, xdrVoid, 'upload'),
  // remote_storage_vol_download_args -> void, then a readstream
  storageVolDownload: declare(209, volTransferArgs, xdrVoid, 'download'),
  // remote_domain_get_state_args -> remote_domain_get_state_ret
  domainGetState: declare(212, domFlagsArgs, xdrStruct({ state: xdrInt, reason: xdrInt })),
  // remote_node_get_cpu_stats_args -> remote_node_get_cpu_stats_ret
  nodeGetCpuStats: declare(
    227,
    xdrStruct({ cpuNum: xdrInt, nparams: xdrInt, flags: xdrUint }),
    xdrStruct({ params: xdrArray(nodeStatsParam, REMOTE_NODE_CPU_STATS_MAX), nparams: xdrInt }),
  ),
  // remote_node_get_memory_stats_args -> remote_node_get_memory_stats_ret
  nodeGetMemoryStats: declare(
    228,
    xdrStruct({ nparams: xdrInt, cellNum: xdrInt, flags: xdrUint }),
    xdrStruct({ params: xdrArray(nodeStatsParam, REMOTE_NODE_MEMORY_STATS_MAX), nparams: xdrInt }),
  ),
  // remote_domain_undefine_flags_args -> void
  domainUndefineFlags: declare(231, domFlagsArgs, xdrVoid),
  // remote_domain_set_metadata_args -> void
  domainSetMetadata: declare(
    264,
    xdrStruct({
      dom: nonnullDomain,
      type: xdrInt,
      metadata: optionalString,
      key: optionalString,
      uri: optionalString,
      flags: xdrUint,
    }),
    xdrVoid,
  ),
  // remote_domain_get_metadata_args -> remote_domain_get_metadata_ret
  domainGetMetadata: declare(265, xdrStruct({ dom: nonnullDomain, type: xdrInt, uri: optionalString, flags: xdrUint }), xdrStruct({ metadata: nonnullString })),
  // remote_connect_list_all_domains_args -> remote_connect_list_all_domains_ret
  connectListAllDomains: declare(273, listAllArgs, xdrStruct({ domains: xdrArray(nonnullDomain, REMOTE_DOMAIN_LIST_MAX), ret: xdrUint })),
  // remote_connect_list_all_storage_pools_args -> remote_connect_list_all_storage_pools_ret
  connectListAllStoragePools: declare(281, listAllArgs, xdrStruct({ pools: xdrArray(nonnullStoragePool, REMOTE_STORAGE_POOL_LIST_MAX), ret: xdrUint })),
  // remote_storage_pool_list_all_volumes_args -> remote_storage_pool_list_all_volumes_ret
  storagePoolListAllVolumes: declare(
    282,
    xdrStruct({ pool: nonnullStoragePool, need_results: xdrInt, flags: xdrUint }),
    xdrStruct({ vols: xdrArray(nonnullStorageVol, REMOTE_STORAGE_VOL_LIST_MAX), ret: xdrUint }),
  ),
  // remote_connect_list_all_networks_args -> remote_connect_list_all_networks_ret
  connectListAllNetworks: declare(283, listAllArgs, xdrStruct({ nets: xdrArray(nonnullNetwork, REMOTE_NETWORK_LIST_MAX), ret: xdrUint })),
  // remote_connect_list_all_interfaces_args -> remote_connect_list_all_interfaces_ret
  connectListAllInterfaces: declare(284, listAllArgs, xdrStruct({ ifaces: xdrArray(nonnullInterface, REMOTE_INTERFACE_LIST_MAX), ret: xdrUint })),
  // remote_connect_domain_event_callback_register_any_args -> ..._ret (dom null: every domain)
  connectDomainEventCallbackRegisterAny: declare(316, xdrStruct({ eventID: xdrInt, dom: optionalDomain }), xdrStruct({ callbackID: xdrInt })),
  // remote_connect_domain_event_callback_deregister_any_args -> void
  connectDomainEventCallbackDeregisterAny: declare(317, xdrStruct({ callbackID: xdrInt }), xdrVoid),
  // remote_connect_get_domain_capabilities_args -> remote_connect_get_domain_capabilities_ret
  connectGetDomainCapabilities: declare(
    342,
    xdrStruct({
      emulatorbin: optionalString,
      arch: optionalString,
      machine: optionalString,
      virttype: optionalString,
      flags: xdrUint,
    }),
    xdrStruct({ capabilities: nonnullString }),
  ),
  // remote_connect_get_all_domain_stats_args -> remote_connect_get_all_domain_stats_ret
  // (doms empty: every domain the flags select)
  connectGetAllDomainStats: declare(
    344,
    xdrStruct({ doms: xdrArray(nonnullDomain, REMOTE_DOMAIN_LIST_MAX), stats: xdrUint, flags: xdrUint }),
    xdrStruct({
      // remote_domain_stats_record
      retStats: xdrArray(xdrStruct({ dom: nonnullDomain, params: xdrArray(typedParam, REMOTE_CONNECT_GET_ALL_DOMAIN_STATS_MAX) }), REMOTE_DOMAIN_LIST_MAX),
    }),
  ),
  // remote_domain_define_xml_flags_args -> remote_domain_define_xml_flags_ret
  domainDefineXmlFlags: declare(350, xdrStruct({ xml: nonnullString, flags: xdrUint }), domRet),
  // remote_domain_interface_addresses_args -> remote_domain_interface_addresses_ret
  domainInterfaceAddresses: declare(
    353,
    xdrStruct({ dom: nonnullDomain, source: xdrUint, flags: xdrUint }),
    xdrStruct({ ifaces: xdrArray(domainInterface, REMOTE_DOMAIN_INTERFACE_MAX) }),
  ),
  // remote_connect_storage_pool_event_register_any_args -> ..._ret (pool null: every pool)
  connectStoragePoolEventRegisterAny: declare(368, xdrStruct({ eventID: xdrInt, pool: optionalStoragePool }), xdrStruct({ callbackID: xdrInt })),
  // remote_connect_storage_pool_event_deregister_any_args -> void
  connectStoragePoolEventDeregisterAny: declare(369, xdrStruct({ callbackID: xdrInt }), xdrVoid),
} as const;

export type Procedures = typeof procedures;
export type ProcedureName = keyof Procedures;
export type ArgsOf<N extends ProcedureName> = ShapeValue<Procedures[N]['args']>;
export type RetOf<N extends ProcedureName> = ShapeValue<Procedures[N]['ret']>;
/** Procedures answered by one REPLY (no stream). */
export type CallName = { [N in ProcedureName]: Procedures[N] extends { stream: StreamDirection } ? never : N }[ProcedureName];
export type UploadName = { [N in ProcedureName]: Procedures[N] extends { stream: 'upload' } ? N : never }[ProcedureName];
export type DownloadName = { [N in ProcedureName]: Procedures[N] extends { stream: 'download' } ? N : never }[ProcedureName];
export type DuplexName = { [N in ProcedureName]: Procedures[N] extends { stream: 'duplex' } ? N : never }[ProcedureName];

// ---- event messages ---------------------------------------------------------------------------
// MESSAGE packets the daemon sends on its own (serial 0, no reply), each for the callbackID a
// REGISTER_ANY call returned.

export interface EventMessage<M> {
  /** REMOTE_PROC_* number of the message. */
  readonly proc: number;
  readonly msg: Shape<M>;
}

const declareEvent = <M>(proc: number, msg: Shape<M>): EventMessage<M> => ({ proc, msg });

export const eventMessages = {
  // remote_domain_event_callback_lifecycle_msg (wrapping remote_domain_event_lifecycle_msg)
  domainEventCallbackLifecycle: declareEvent(318, xdrStruct({ callbackID: xdrInt, msg: xdrStruct({ dom: nonnullDomain, event: xdrInt, detail: xdrInt }) })),
  // remote_storage_pool_event_lifecycle_msg
  storagePoolEventLifecycle: declareEvent(370, xdrStruct({ callbackID: xdrInt, pool: nonnullStoragePool, event: xdrInt, detail: xdrInt })),
  // remote_storage_pool_event_refresh_msg
  storagePoolEventRefresh: declareEvent(373, xdrStruct({ callbackID: xdrInt, pool: nonnullStoragePool })),
} as const;

export type EventMessages = typeof eventMessages;
export type EventName = keyof EventMessages;
export type EventOf<N extends EventName> = ShapeValue<EventMessages[N]['msg']>;

const byNumber = new Map<number, string>([
  ...(Object.keys(procedures) as ProcedureName[]).map((name) => [procedures[name].proc, name] as const),
  ...(Object.keys(eventMessages) as EventName[]).map((name) => [eventMessages[name].proc, name] as const),
]);

/** The table's name for a REMOTE_PROC_* number, or `proc#N` for one this client does not declare. */
export function procedureName(proc: number): string {
  return byNumber.get(proc) ?? `proc#${proc}`;
}

/** The header of a packet of the remote program. */
export function remoteHeader(fields: { procedure: number; type: MessageTypeValue; serial: number; status?: MessageStatusValue }): MessageHeader {
  return {
    program: REMOTE_PROGRAM,
    version: REMOTE_PROTOCOL_VERSION,
    procedure: fields.procedure,
    type: fields.type,
    serial: fields.serial,
    status: fields.status ?? MessageStatus.Ok,
  };
}
