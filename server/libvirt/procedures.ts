// The procedures this client speaks (src/remote/remote_protocol.x), each declared once. Field
// names are the .x names, so a shape can be checked against the .x file line by line.
import { NODE_STATS_ALL } from './flags';
import {
  domainInterface,
  nodeStatsParam,
  nonnullDomain,
  nonnullInterface,
  nonnullNetwork,
  nonnullStoragePool,
  nonnullStorageVol,
  nonnullString,
  optionalDomain,
  optionalStoragePool,
  optionalString,
  typedParam,
  REMOTE_AUTH_TYPE_LIST_MAX,
  REMOTE_CONNECT_GET_ALL_DOMAIN_STATS_MAX,
  REMOTE_DOMAIN_INTERFACE_MAX,
  REMOTE_DOMAIN_LIST_MAX,
  REMOTE_INTERFACE_LIST_MAX,
  REMOTE_NETWORK_LIST_MAX,
  REMOTE_NODE_CPU_STATS_MAX,
  REMOTE_NODE_MEMORY_STATS_MAX,
  REMOTE_STORAGE_POOL_LIST_MAX,
  REMOTE_STORAGE_VOL_LIST_MAX,
} from './remote-types';
import { type Shape, type ShapeValue } from './xdr';
import { xdrArray, xdrFixedArray, xdrInt, xdrStruct, xdrUhyper, xdrUhyperNumber, xdrUint, xdrVoid } from './xdr-shapes';

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
// One row per procedure, as go-libvirt generates one method per procedure of the .x file: the
// number, go-libvirt's method name (shown by spans and `libvirt call` lines), the argument and
// reply shapes, whether it changes what libvirt stores, and what the wrapper in calls.ts makes
// of it. Adding a call is adding a row: the client's method, its budget, its span and the leader
// fence follow from it.

/** writestream, readstream, or both at once (a console: keystrokes in, output out). */
export type StreamDirection = 'upload' | 'download' | 'duplex';

/** `write`: the call changes what libvirt stores (a replica that no longer leads may not send it). */
export type Access = 'read' | 'write';

export interface Procedure<A, R> {
  /** REMOTE_PROC_* number. */
  readonly proc: number;
  /** go-libvirt's method name: the C API's in PascalCase (DomainGetXMLDesc, NodeGetCPUStats). */
  readonly name: string;
  readonly args: Shape<A>;
  readonly ret: Shape<R>;
  readonly access: Access;
  /** writestream (upload), readstream (download), or a console's two-way stream (duplex). */
  readonly stream?: StreamDirection;
  /** The reply field the wrapper returns; absent: the whole reply. */
  readonly result?: keyof R;
  /** Arguments the caller may leave out, besides `flags` (0), `need_results` (1) and optional fields (null). */
  readonly defaults?: Partial<A>;
  /** Spoken by the client itself (handshake, close, event registration): no wrapper of its own. */
  readonly hidden?: boolean;
}

interface Row<A, R, K, S, D, H> {
  proc: number;
  name: string;
  args: Shape<A>;
  ret: Shape<R>;
  access: Access;
  result?: K;
  stream?: S;
  defaults?: D;
  hidden?: H;
}

/** A row as its literal types: which reply field, which stream, which defaults, hidden or not. */
type Declared<A, R, K, S, D, H> = Omit<Procedure<A, R>, 'result' | 'stream' | 'defaults' | 'hidden'> & {
  readonly result: K;
  readonly stream: S;
  readonly defaults: D;
  readonly hidden: H;
};

function declare<
  A,
  R,
  const K extends keyof R | undefined = undefined,
  const S extends StreamDirection | undefined = undefined,
  const D extends Partial<A> = Record<never, never>,
  const H extends boolean = false,
>(row: Row<A, R, K, S, D, H>): Declared<A, R, K, S, D, H> {
  return row as Declared<A, R, K, S, D, H>;
}

const listAll = { need_results: 1 } as const;

export const procedures = {
  // remote_connect_open_args -> void
  connectOpen: declare({ proc: 1, name: 'ConnectOpen', args: xdrStruct({ name: optionalString, flags: xdrUint }), ret: xdrVoid, access: 'read', hidden: true }),
  // void -> void
  connectClose: declare({ proc: 2, name: 'ConnectClose', args: xdrVoid, ret: xdrVoid, access: 'read', hidden: true }),
  // void -> remote_node_get_info_ret (char model[32]: each char a 4-byte int on the wire)
  nodeGetInfo: declare({
    proc: 6,
    name: 'NodeGetInfo',
    args: xdrVoid,
    ret: xdrStruct({
      model: xdrFixedArray(xdrInt, 32),
      memory: xdrUhyper,
      cpus: xdrInt,
      mhz: xdrInt,
      nodes: xdrInt,
      sockets: xdrInt,
      cores: xdrInt,
      threads: xdrInt,
    }),
    access: 'read',
  }),
  // void -> remote_connect_get_capabilities_ret
  connectGetCapabilities: declare({
    proc: 7,
    name: 'ConnectGetCapabilities',
    args: xdrVoid,
    ret: xdrStruct({ capabilities: nonnullString }),
    access: 'read',
    result: 'capabilities',
  }),
  // remote_domain_get_xml_desc_args -> remote_domain_get_xml_desc_ret
  domainGetXmlDesc: declare({ proc: 14, name: 'DomainGetXMLDesc', args: domFlagsArgs, ret: xmlRet, access: 'read', result: 'xml' }),
  // remote_domain_create_args -> void
  domainCreate: declare({ proc: 9, name: 'DomainCreate', args: domArgs, ret: xdrVoid, access: 'write' }),
  // remote_domain_destroy_args -> void
  domainDestroy: declare({ proc: 12, name: 'DomainDestroy', args: domArgs, ret: xdrVoid, access: 'write' }),
  // remote_network_get_xml_desc_args -> remote_network_get_xml_desc_ret
  networkGetXmlDesc: declare({
    proc: 43,
    name: 'NetworkGetXMLDesc',
    args: xdrStruct({ net: nonnullNetwork, flags: xdrUint }),
    ret: xmlRet,
    access: 'read',
    result: 'xml',
  }),
  // remote_domain_get_info_args -> remote_domain_get_info_ret (unsigned char/short travel as u_int)
  domainGetInfo: declare({
    proc: 16,
    name: 'DomainGetInfo',
    args: domArgs,
    ret: xdrStruct({ state: xdrUint, maxMem: xdrUhyper, memory: xdrUhyper, nrVirtCpu: xdrUint, cpuTime: xdrUhyper }),
    access: 'read',
  }),
  // remote_domain_lookup_by_name_args -> remote_domain_lookup_by_name_ret
  domainLookupByName: declare({ proc: 23, name: 'DomainLookupByName', args: nameArgs, ret: domRet, access: 'read', result: 'dom' }),
  // void -> remote_connect_get_hostname_ret
  connectGetHostname: declare({
    proc: 59,
    name: 'ConnectGetHostname',
    args: xdrVoid,
    ret: xdrStruct({ hostname: nonnullString }),
    access: 'read',
    result: 'hostname',
  }),
  // void -> remote_auth_list_ret (remote_auth_type is an enum: an int on the wire)
  authList: declare({
    proc: 66,
    name: 'AuthList',
    args: xdrVoid,
    ret: xdrStruct({ types: xdrArray(xdrInt, REMOTE_AUTH_TYPE_LIST_MAX) }),
    access: 'read',
    hidden: true,
  }),
  // void -> remote_auth_polkit_ret
  authPolkit: declare({ proc: 70, name: 'AuthPolkit', args: xdrVoid, ret: xdrStruct({ complete: xdrInt }), access: 'read', hidden: true }),
  // remote_interface_get_xml_desc_args -> remote_interface_get_xml_desc_ret
  interfaceGetXmlDesc: declare({
    proc: 130,
    name: 'InterfaceGetXMLDesc',
    args: xdrStruct({ iface: nonnullInterface, flags: xdrUint }),
    ret: xmlRet,
    access: 'read',
    result: 'xml',
  }),
  // remote_storage_pool_create_args -> void
  storagePoolCreate: declare({ proc: 78, name: 'StoragePoolCreate', args: poolFlagsArgs, ret: xdrVoid, access: 'write' }),
  // remote_storage_pool_destroy_args -> void
  storagePoolDestroy: declare({ proc: 80, name: 'StoragePoolDestroy', args: poolArgs, ret: xdrVoid, access: 'write' }),
  // remote_storage_pool_refresh_args -> void
  storagePoolRefresh: declare({ proc: 83, name: 'StoragePoolRefresh', args: poolFlagsArgs, ret: xdrVoid, access: 'write' }),
  // remote_storage_pool_lookup_by_name_args -> remote_storage_pool_lookup_by_name_ret
  storagePoolLookupByName: declare({ proc: 84, name: 'StoragePoolLookupByName', args: nameArgs, ret: poolRet, access: 'read', result: 'pool' }),
  // remote_storage_pool_get_info_args -> remote_storage_pool_get_info_ret (unsigned char state: u_int)
  storagePoolGetInfo: declare({
    proc: 87,
    name: 'StoragePoolGetInfo',
    args: poolArgs,
    ret: xdrStruct({ state: xdrUint, capacity: xdrUhyperNumber, allocation: xdrUhyperNumber, available: xdrUhyperNumber }),
    access: 'read',
  }),
  // remote_storage_pool_get_xml_desc_args -> remote_storage_pool_get_xml_desc_ret
  storagePoolGetXmlDesc: declare({ proc: 88, name: 'StoragePoolGetXMLDesc', args: poolFlagsArgs, ret: xmlRet, access: 'read', result: 'xml' }),
  // remote_storage_vol_create_xml_args -> remote_storage_vol_create_xml_ret
  storageVolCreateXml: declare({
    proc: 93,
    name: 'StorageVolCreateXML',
    args: xdrStruct({ pool: nonnullStoragePool, xml: nonnullString, flags: xdrUint }),
    ret: volRet,
    access: 'write',
    result: 'vol',
  }),
  // remote_storage_vol_delete_args -> void
  storageVolDelete: declare({ proc: 94, name: 'StorageVolDelete', args: volFlagsArgs, ret: xdrVoid, access: 'write' }),
  // remote_storage_vol_lookup_by_name_args -> remote_storage_vol_lookup_by_name_ret
  storageVolLookupByName: declare({
    proc: 95,
    name: 'StorageVolLookupByName',
    args: xdrStruct({ pool: nonnullStoragePool, name: nonnullString }),
    ret: volRet,
    access: 'read',
    result: 'vol',
  }),
  // remote_storage_vol_get_info_args -> remote_storage_vol_get_info_ret (char type: an int)
  storageVolGetInfo: declare({
    proc: 98,
    name: 'StorageVolGetInfo',
    args: volArgs,
    ret: xdrStruct({ type: xdrInt, capacity: xdrUhyperNumber, allocation: xdrUhyperNumber }),
    access: 'read',
  }),
  // remote_storage_vol_get_xml_desc_args -> remote_storage_vol_get_xml_desc_ret
  storageVolGetXmlDesc: declare({ proc: 99, name: 'StorageVolGetXMLDesc', args: volFlagsArgs, ret: xmlRet, access: 'read', result: 'xml' }),
  // remote_storage_vol_get_path_args -> remote_storage_vol_get_path_ret
  storageVolGetPath: declare({
    proc: 100,
    name: 'StorageVolGetPath',
    args: volArgs,
    ret: xdrStruct({ name: nonnullString }),
    access: 'read',
    result: 'name',
  }),
  // void -> remote_connect_get_lib_version_ret
  connectGetLibVersion: declare({
    proc: 157,
    name: 'ConnectGetLibVersion',
    args: xdrVoid,
    ret: xdrStruct({ lib_ver: xdrUhyperNumber }),
    access: 'read',
    result: 'lib_ver',
  }),
  // remote_domain_open_console_args -> void, then a stream both ways (the .x says readstream).
  // Read: the stream reaches the guest's serial port and changes nothing libvirt stores.
  domainOpenConsole: declare({
    proc: 201,
    name: 'DomainOpenConsole',
    args: xdrStruct({ dom: nonnullDomain, dev_name: optionalString, flags: xdrUint }),
    ret: xdrVoid,
    access: 'read',
    stream: 'duplex',
  }),
  // remote_storage_vol_upload_args -> void, then a writestream (length 0: to the end)
  storageVolUpload: declare({
    proc: 208,
    name: 'StorageVolUpload',
    args: volTransferArgs,
    ret: xdrVoid,
    access: 'write',
    stream: 'upload',
    defaults: { offset: 0, length: 0 },
  }),
  // remote_storage_vol_download_args -> void, then a readstream (length 0: to the end)
  storageVolDownload: declare({
    proc: 209,
    name: 'StorageVolDownload',
    args: volTransferArgs,
    ret: xdrVoid,
    access: 'read',
    stream: 'download',
    defaults: { offset: 0, length: 0 },
  }),
  // remote_domain_get_state_args -> remote_domain_get_state_ret
  domainGetState: declare({ proc: 212, name: 'DomainGetState', args: domFlagsArgs, ret: xdrStruct({ state: xdrInt, reason: xdrInt }), access: 'read' }),
  // remote_node_get_cpu_stats_args -> remote_node_get_cpu_stats_ret (cpuNum -1: all CPUs)
  nodeGetCpuStats: declare({
    proc: 227,
    name: 'NodeGetCPUStats',
    args: xdrStruct({ cpuNum: xdrInt, nparams: xdrInt, flags: xdrUint }),
    ret: xdrStruct({ params: xdrArray(nodeStatsParam, REMOTE_NODE_CPU_STATS_MAX), nparams: xdrInt }),
    access: 'read',
    defaults: { cpuNum: NODE_STATS_ALL, nparams: 0 },
  }),
  // remote_node_get_memory_stats_args -> remote_node_get_memory_stats_ret (cellNum -1: all cells)
  nodeGetMemoryStats: declare({
    proc: 228,
    name: 'NodeGetMemoryStats',
    args: xdrStruct({ nparams: xdrInt, cellNum: xdrInt, flags: xdrUint }),
    ret: xdrStruct({ params: xdrArray(nodeStatsParam, REMOTE_NODE_MEMORY_STATS_MAX), nparams: xdrInt }),
    access: 'read',
    defaults: { cellNum: NODE_STATS_ALL, nparams: 0 },
  }),
  // remote_domain_undefine_flags_args -> void
  domainUndefineFlags: declare({ proc: 231, name: 'DomainUndefineFlags', args: domFlagsArgs, ret: xdrVoid, access: 'write' }),
  // remote_domain_set_metadata_args -> void (metadata null removes the element)
  domainSetMetadata: declare({
    proc: 264,
    name: 'DomainSetMetadata',
    args: xdrStruct({
      dom: nonnullDomain,
      type: xdrInt,
      metadata: optionalString,
      key: optionalString,
      uri: optionalString,
      flags: xdrUint,
    }),
    ret: xdrVoid,
    access: 'write',
  }),
  // remote_domain_get_metadata_args -> remote_domain_get_metadata_ret
  domainGetMetadata: declare({
    proc: 265,
    name: 'DomainGetMetadata',
    args: xdrStruct({ dom: nonnullDomain, type: xdrInt, uri: optionalString, flags: xdrUint }),
    ret: xdrStruct({ metadata: nonnullString }),
    access: 'read',
    result: 'metadata',
  }),
  // remote_connect_list_all_domains_args -> remote_connect_list_all_domains_ret
  connectListAllDomains: declare({
    proc: 273,
    name: 'ConnectListAllDomains',
    args: listAllArgs,
    ret: xdrStruct({ domains: xdrArray(nonnullDomain, REMOTE_DOMAIN_LIST_MAX), ret: xdrUint }),
    access: 'read',
    result: 'domains',
  }),
  // remote_connect_list_all_storage_pools_args -> remote_connect_list_all_storage_pools_ret
  connectListAllStoragePools: declare({
    proc: 281,
    name: 'ConnectListAllStoragePools',
    args: listAllArgs,
    ret: xdrStruct({ pools: xdrArray(nonnullStoragePool, REMOTE_STORAGE_POOL_LIST_MAX), ret: xdrUint }),
    access: 'read',
    result: 'pools',
  }),
  // remote_storage_pool_list_all_volumes_args -> remote_storage_pool_list_all_volumes_ret
  storagePoolListAllVolumes: declare({
    proc: 282,
    name: 'StoragePoolListAllVolumes',
    args: xdrStruct({ pool: nonnullStoragePool, need_results: xdrInt, flags: xdrUint }),
    ret: xdrStruct({ vols: xdrArray(nonnullStorageVol, REMOTE_STORAGE_VOL_LIST_MAX), ret: xdrUint }),
    access: 'read',
    result: 'vols',
  }),
  // remote_connect_list_all_networks_args -> remote_connect_list_all_networks_ret
  connectListAllNetworks: declare({
    proc: 283,
    name: 'ConnectListAllNetworks',
    args: listAllArgs,
    ret: xdrStruct({ nets: xdrArray(nonnullNetwork, REMOTE_NETWORK_LIST_MAX), ret: xdrUint }),
    access: 'read',
    result: 'nets',
  }),
  // remote_connect_list_all_interfaces_args -> remote_connect_list_all_interfaces_ret (hosts
  // without libvirt's interface driver answer ErrNoSupport)
  connectListAllInterfaces: declare({
    proc: 284,
    name: 'ConnectListAllInterfaces',
    args: listAllArgs,
    ret: xdrStruct({ ifaces: xdrArray(nonnullInterface, REMOTE_INTERFACE_LIST_MAX), ret: xdrUint }),
    access: 'read',
    result: 'ifaces',
  }),
  // remote_connect_domain_event_callback_register_any_args -> ..._ret (dom null: every domain).
  // Registrations live and die with their connection and store nothing.
  connectDomainEventCallbackRegisterAny: declare({
    proc: 316,
    name: 'ConnectDomainEventCallbackRegisterAny',
    args: xdrStruct({ eventID: xdrInt, dom: optionalDomain }),
    ret: xdrStruct({ callbackID: xdrInt }),
    access: 'read',
    hidden: true,
  }),
  // remote_connect_domain_event_callback_deregister_any_args -> void
  connectDomainEventCallbackDeregisterAny: declare({
    proc: 317,
    name: 'ConnectDomainEventCallbackDeregisterAny',
    args: xdrStruct({ callbackID: xdrInt }),
    ret: xdrVoid,
    access: 'read',
    hidden: true,
  }),
  // remote_connect_get_domain_capabilities_args -> remote_connect_get_domain_capabilities_ret
  connectGetDomainCapabilities: declare({
    proc: 342,
    name: 'ConnectGetDomainCapabilities',
    args: xdrStruct({
      emulatorbin: optionalString,
      arch: optionalString,
      machine: optionalString,
      virttype: optionalString,
      flags: xdrUint,
    }),
    ret: xdrStruct({ capabilities: nonnullString }),
    access: 'read',
    result: 'capabilities',
  }),
  // remote_connect_get_all_domain_stats_args -> remote_connect_get_all_domain_stats_ret
  // (doms empty: every domain the flags select)
  connectGetAllDomainStats: declare({
    proc: 344,
    name: 'ConnectGetAllDomainStats',
    args: xdrStruct({ doms: xdrArray(nonnullDomain, REMOTE_DOMAIN_LIST_MAX), stats: xdrUint, flags: xdrUint }),
    ret: xdrStruct({
      // remote_domain_stats_record
      retStats: xdrArray(xdrStruct({ dom: nonnullDomain, params: xdrArray(typedParam, REMOTE_CONNECT_GET_ALL_DOMAIN_STATS_MAX) }), REMOTE_DOMAIN_LIST_MAX),
    }),
    access: 'read',
    defaults: { doms: [] },
  }),
  // remote_domain_define_xml_flags_args -> remote_domain_define_xml_flags_ret
  domainDefineXmlFlags: declare({
    proc: 350,
    name: 'DomainDefineXMLFlags',
    args: xdrStruct({ xml: nonnullString, flags: xdrUint }),
    ret: domRet,
    access: 'write',
    result: 'dom',
  }),
  // remote_domain_interface_addresses_args -> remote_domain_interface_addresses_ret
  domainInterfaceAddresses: declare({
    proc: 353,
    name: 'DomainInterfaceAddresses',
    args: xdrStruct({ dom: nonnullDomain, source: xdrUint, flags: xdrUint }),
    ret: xdrStruct({ ifaces: xdrArray(domainInterface, REMOTE_DOMAIN_INTERFACE_MAX) }),
    access: 'read',
    result: 'ifaces',
  }),
  // remote_connect_storage_pool_event_register_any_args -> ..._ret (pool null: every pool)
  connectStoragePoolEventRegisterAny: declare({
    proc: 368,
    name: 'ConnectStoragePoolEventRegisterAny',
    args: xdrStruct({ eventID: xdrInt, pool: optionalStoragePool }),
    ret: xdrStruct({ callbackID: xdrInt }),
    access: 'read',
    hidden: true,
  }),
  // remote_connect_storage_pool_event_deregister_any_args -> void
  connectStoragePoolEventDeregisterAny: declare({
    proc: 369,
    name: 'ConnectStoragePoolEventDeregisterAny',
    args: xdrStruct({ callbackID: xdrInt }),
    ret: xdrVoid,
    access: 'read',
    hidden: true,
  }),
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
