// The remote program (src/remote/remote_protocol.x): data types and the procedures this client
// speaks, each declared once as number + argument shape + return shape. Field names are the .x
// names, so a shape can be checked against the .x file line by line. The client is generic over
// this table; api.ts gives the procedures friendly signatures.
import { MessageStatus, type MessageHeader, type MessageStatusValue, type MessageTypeValue } from './net-protocol';
import {
  xdrArray,
  xdrInt,
  xdrOpaque,
  xdrOptional,
  xdrString,
  xdrStruct,
  xdrUhyper,
  xdrUhyperNumber,
  xdrUint,
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
const REMOTE_AUTH_TYPE_LIST_MAX = 20;
const REMOTE_DOMAIN_INTERFACE_MAX = 2048;
const REMOTE_DOMAIN_IP_ADDR_MAX = 2048;
const VIR_UUID_BUFLEN = 16;

export const nonnullString = xdrString(REMOTE_STRING_MAX); // remote_nonnull_string
export const optionalString = xdrOptional(nonnullString); // remote_string
export const uuid = xdrOpaque(VIR_UUID_BUFLEN); // remote_uuid

export const nonnullDomain = xdrStruct({ name: nonnullString, uuid, id: xdrInt }); // remote_nonnull_domain
export const nonnullStoragePool = xdrStruct({ name: nonnullString, uuid }); // remote_nonnull_storage_pool
// remote_nonnull_storage_vol
export const nonnullStorageVol = xdrStruct({ pool: nonnullString, name: nonnullString, key: nonnullString });

export type Domain = ShapeValue<typeof nonnullDomain>;
export type StoragePool = ShapeValue<typeof nonnullStoragePool>;
export type StorageVol = ShapeValue<typeof nonnullStorageVol>;

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

export type StreamDirection = 'upload' | 'download';

export interface Procedure<A, R> {
  /** REMOTE_PROC_* number. */
  readonly proc: number;
  readonly args: Shape<A>;
  readonly ret: Shape<R>;
  /** writestream (upload) or readstream (download) in remote_protocol.x terms. */
  readonly stream?: StreamDirection;
}

function declare<A, R>(proc: number, args: Shape<A>, ret: Shape<R>): Procedure<A, R>;
function declare<A, R, S extends StreamDirection>(
  proc: number,
  args: Shape<A>,
  ret: Shape<R>,
  stream: S,
): Procedure<A, R> & { readonly stream: S };
function declare<A, R>(proc: number, args: Shape<A>, ret: Shape<R>, stream?: StreamDirection): Procedure<A, R> {
  return stream ? { proc, args, ret, stream } : { proc, args, ret };
}

export const procedures = {
  // remote_connect_open_args -> void
  connectOpen: declare(1, xdrStruct({ name: optionalString, flags: xdrUint }), xdrVoid),
  // void -> void
  connectClose: declare(2, xdrVoid, xdrVoid),
  // void -> remote_connect_get_capabilities_ret
  connectGetCapabilities: declare(7, xdrVoid, xdrStruct({ capabilities: nonnullString })),
  // remote_domain_get_xml_desc_args -> remote_domain_get_xml_desc_ret
  domainGetXmlDesc: declare(14, domFlagsArgs, xmlRet),
  // remote_domain_create_args -> void
  domainCreate: declare(9, domArgs, xdrVoid),
  // remote_domain_destroy_args -> void
  domainDestroy: declare(12, domArgs, xdrVoid),
  // remote_domain_get_info_args -> remote_domain_get_info_ret (unsigned char/short travel as u_int)
  domainGetInfo: declare(
    16,
    domArgs,
    xdrStruct({ state: xdrUint, maxMem: xdrUhyper, memory: xdrUhyper, nrVirtCpu: xdrUint, cpuTime: xdrUhyper }),
  ),
  // remote_domain_lookup_by_name_args -> remote_domain_lookup_by_name_ret
  domainLookupByName: declare(23, nameArgs, domRet),
  // void -> remote_connect_get_hostname_ret
  connectGetHostname: declare(59, xdrVoid, xdrStruct({ hostname: nonnullString })),
  // void -> remote_auth_list_ret (remote_auth_type is an enum: an int on the wire)
  authList: declare(66, xdrVoid, xdrStruct({ types: xdrArray(xdrInt, REMOTE_AUTH_TYPE_LIST_MAX) })),
  // void -> remote_auth_polkit_ret
  authPolkit: declare(70, xdrVoid, xdrStruct({ complete: xdrInt })),
  // remote_storage_pool_create_args -> void
  storagePoolCreate: declare(78, poolFlagsArgs, xdrVoid),
  // remote_storage_pool_destroy_args -> void
  storagePoolDestroy: declare(80, poolArgs, xdrVoid),
  // remote_storage_pool_refresh_args -> void
  storagePoolRefresh: declare(83, poolFlagsArgs, xdrVoid),
  // remote_storage_pool_lookup_by_name_args -> remote_storage_pool_lookup_by_name_ret
  storagePoolLookupByName: declare(84, nameArgs, poolRet),
  // remote_storage_pool_get_info_args -> remote_storage_pool_get_info_ret (unsigned char state: u_int)
  storagePoolGetInfo: declare(
    87,
    poolArgs,
    xdrStruct({ state: xdrUint, capacity: xdrUhyperNumber, allocation: xdrUhyperNumber, available: xdrUhyperNumber }),
  ),
  // remote_storage_pool_get_xml_desc_args -> remote_storage_pool_get_xml_desc_ret
  storagePoolGetXmlDesc: declare(88, poolFlagsArgs, xmlRet),
  // remote_storage_vol_create_xml_args -> remote_storage_vol_create_xml_ret
  storageVolCreateXml: declare(93, xdrStruct({ pool: nonnullStoragePool, xml: nonnullString, flags: xdrUint }), volRet),
  // remote_storage_vol_delete_args -> void
  storageVolDelete: declare(94, volFlagsArgs, xdrVoid),
  // remote_storage_vol_lookup_by_name_args -> remote_storage_vol_lookup_by_name_ret
  storageVolLookupByName: declare(95, xdrStruct({ pool: nonnullStoragePool, name: nonnullString }), volRet),
  // remote_storage_vol_get_info_args -> remote_storage_vol_get_info_ret (char type: an int)
  storageVolGetInfo: declare(
    98,
    volArgs,
    xdrStruct({ type: xdrInt, capacity: xdrUhyperNumber, allocation: xdrUhyperNumber }),
  ),
  // remote_storage_vol_get_xml_desc_args -> remote_storage_vol_get_xml_desc_ret
  storageVolGetXmlDesc: declare(99, volFlagsArgs, xmlRet),
  // remote_storage_vol_get_path_args -> remote_storage_vol_get_path_ret
  storageVolGetPath: declare(100, volArgs, xdrStruct({ name: nonnullString })),
  // void -> remote_connect_get_lib_version_ret
  connectGetLibVersion: declare(157, xdrVoid, xdrStruct({ lib_ver: xdrUhyperNumber })),
  // remote_storage_vol_upload_args -> void, then a writestream
  storageVolUpload: declare(208, volTransferArgs, xdrVoid, 'upload'),
  // remote_storage_vol_download_args -> void, then a readstream
  storageVolDownload: declare(209, volTransferArgs, xdrVoid, 'download'),
  // remote_domain_get_state_args -> remote_domain_get_state_ret
  domainGetState: declare(212, domFlagsArgs, xdrStruct({ state: xdrInt, reason: xdrInt })),
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
  domainGetMetadata: declare(
    265,
    xdrStruct({ dom: nonnullDomain, type: xdrInt, uri: optionalString, flags: xdrUint }),
    xdrStruct({ metadata: nonnullString }),
  ),
  // remote_connect_list_all_domains_args -> remote_connect_list_all_domains_ret
  connectListAllDomains: declare(
    273,
    listAllArgs,
    xdrStruct({ domains: xdrArray(nonnullDomain, REMOTE_DOMAIN_LIST_MAX), ret: xdrUint }),
  ),
  // remote_connect_list_all_storage_pools_args -> remote_connect_list_all_storage_pools_ret
  connectListAllStoragePools: declare(
    281,
    listAllArgs,
    xdrStruct({ pools: xdrArray(nonnullStoragePool, REMOTE_STORAGE_POOL_LIST_MAX), ret: xdrUint }),
  ),
  // remote_storage_pool_list_all_volumes_args -> remote_storage_pool_list_all_volumes_ret
  storagePoolListAllVolumes: declare(
    282,
    xdrStruct({ pool: nonnullStoragePool, need_results: xdrInt, flags: xdrUint }),
    xdrStruct({ vols: xdrArray(nonnullStorageVol, REMOTE_STORAGE_VOL_LIST_MAX), ret: xdrUint }),
  ),
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
  // remote_domain_define_xml_flags_args -> remote_domain_define_xml_flags_ret
  domainDefineXmlFlags: declare(350, xdrStruct({ xml: nonnullString, flags: xdrUint }), domRet),
  // remote_domain_interface_addresses_args -> remote_domain_interface_addresses_ret
  domainInterfaceAddresses: declare(
    353,
    xdrStruct({ dom: nonnullDomain, source: xdrUint, flags: xdrUint }),
    xdrStruct({ ifaces: xdrArray(domainInterface, REMOTE_DOMAIN_INTERFACE_MAX) }),
  ),
} as const;

export type Procedures = typeof procedures;
export type ProcedureName = keyof Procedures;
export type ArgsOf<N extends ProcedureName> = ShapeValue<Procedures[N]['args']>;
export type RetOf<N extends ProcedureName> = ShapeValue<Procedures[N]['ret']>;
/** Procedures answered by one REPLY (no stream). */
export type CallName = { [N in ProcedureName]: Procedures[N] extends { stream: StreamDirection } ? never : N }[ProcedureName];
export type UploadName = { [N in ProcedureName]: Procedures[N] extends { stream: 'upload' } ? N : never }[ProcedureName];
export type DownloadName = { [N in ProcedureName]: Procedures[N] extends { stream: 'download' } ? N : never }[ProcedureName];

const byNumber = new Map<number, ProcedureName>(
  (Object.keys(procedures) as ProcedureName[]).map((name) => [procedures[name].proc, name]),
);

/** The table's name for a REMOTE_PROC_* number, or `proc#N` for one this client does not declare. */
export function procedureName(proc: number): string {
  return byNumber.get(proc) ?? `proc#${proc}`;
}

/** The header of a packet of the remote program. */
export function remoteHeader(fields: {
  procedure: number;
  type: MessageTypeValue;
  serial: number;
  status?: MessageStatusValue;
}): MessageHeader {
  return {
    program: REMOTE_PROGRAM,
    version: REMOTE_PROTOCOL_VERSION,
    procedure: fields.procedure,
    type: fields.type,
    serial: fields.serial,
    status: fields.status ?? MessageStatus.Ok,
  };
}
