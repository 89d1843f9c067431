// libvirt's virErrorNumber and virErrorDomain (include/libvirt/virterror.h, libvirt 9.0 / master:
// codes 0..110, domains 0..72), named the way go-libvirt names them (VIR_ERR_NO_DOMAIN -> ErrNoDomain).
// The numbers are ABI: libvirt only ever appends, so an unknown number is a newer daemon's code.

export const libvirtErrorCodes = {
  ErrOk: 0, // VIR_ERR_OK
  ErrInternalError: 1, // VIR_ERR_INTERNAL_ERROR
  ErrNoMemory: 2, // VIR_ERR_NO_MEMORY
  ErrNoSupport: 3, // VIR_ERR_NO_SUPPORT
  ErrUnknownHost: 4, // VIR_ERR_UNKNOWN_HOST
  ErrNoConnect: 5, // VIR_ERR_NO_CONNECT
  ErrInvalidConn: 6, // VIR_ERR_INVALID_CONN
  ErrInvalidDomain: 7, // VIR_ERR_INVALID_DOMAIN
  ErrInvalidArg: 8, // VIR_ERR_INVALID_ARG
  ErrOperationFailed: 9, // VIR_ERR_OPERATION_FAILED
  ErrGetFailed: 10, // VIR_ERR_GET_FAILED
  ErrPostFailed: 11, // VIR_ERR_POST_FAILED
  ErrHTTPError: 12, // VIR_ERR_HTTP_ERROR
  ErrSexprSerial: 13, // VIR_ERR_SEXPR_SERIAL
  ErrNoXen: 14, // VIR_ERR_NO_XEN
  ErrXenCall: 15, // VIR_ERR_XEN_CALL
  ErrOsType: 16, // VIR_ERR_OS_TYPE
  ErrNoKernel: 17, // VIR_ERR_NO_KERNEL
  ErrNoRoot: 18, // VIR_ERR_NO_ROOT
  ErrNoSource: 19, // VIR_ERR_NO_SOURCE
  ErrNoTarget: 20, // VIR_ERR_NO_TARGET
  ErrNoName: 21, // VIR_ERR_NO_NAME
  ErrNoOs: 22, // VIR_ERR_NO_OS
  ErrNoDevice: 23, // VIR_ERR_NO_DEVICE
  ErrNoXenstore: 24, // VIR_ERR_NO_XENSTORE
  ErrDriverFull: 25, // VIR_ERR_DRIVER_FULL
  ErrCallFailed: 26, // VIR_ERR_CALL_FAILED
  ErrXMLError: 27, // VIR_ERR_XML_ERROR
  ErrDomExist: 28, // VIR_ERR_DOM_EXIST
  ErrOperationDenied: 29, // VIR_ERR_OPERATION_DENIED
  ErrOpenFailed: 30, // VIR_ERR_OPEN_FAILED
  ErrReadFailed: 31, // VIR_ERR_READ_FAILED
  ErrParseFailed: 32, // VIR_ERR_PARSE_FAILED
  ErrConfSyntax: 33, // VIR_ERR_CONF_SYNTAX
  ErrWriteFailed: 34, // VIR_ERR_WRITE_FAILED
  ErrXMLDetail: 35, // VIR_ERR_XML_DETAIL
  ErrInvalidNetwork: 36, // VIR_ERR_INVALID_NETWORK
  ErrNetworkExist: 37, // VIR_ERR_NETWORK_EXIST
  ErrSystemError: 38, // VIR_ERR_SYSTEM_ERROR
  ErrRPC: 39, // VIR_ERR_RPC
  ErrGnutlsError: 40, // VIR_ERR_GNUTLS_ERROR
  WarNoNetwork: 41, // VIR_WAR_NO_NETWORK
  ErrNoDomain: 42, // VIR_ERR_NO_DOMAIN
  ErrNoNetwork: 43, // VIR_ERR_NO_NETWORK
  ErrInvalidMac: 44, // VIR_ERR_INVALID_MAC
  ErrAuthFailed: 45, // VIR_ERR_AUTH_FAILED
  ErrInvalidStoragePool: 46, // VIR_ERR_INVALID_STORAGE_POOL
  ErrInvalidStorageVol: 47, // VIR_ERR_INVALID_STORAGE_VOL
  WarNoStorage: 48, // VIR_WAR_NO_STORAGE
  ErrNoStoragePool: 49, // VIR_ERR_NO_STORAGE_POOL
  ErrNoStorageVol: 50, // VIR_ERR_NO_STORAGE_VOL
  WarNoNode: 51, // VIR_WAR_NO_NODE
  ErrInvalidNodeDevice: 52, // VIR_ERR_INVALID_NODE_DEVICE
  ErrNoNodeDevice: 53, // VIR_ERR_NO_NODE_DEVICE
  ErrNoSecurityModel: 54, // VIR_ERR_NO_SECURITY_MODEL
  ErrOperationInvalid: 55, // VIR_ERR_OPERATION_INVALID
  WarNoInterface: 56, // VIR_WAR_NO_INTERFACE
  ErrNoInterface: 57, // VIR_ERR_NO_INTERFACE
  ErrInvalidInterface: 58, // VIR_ERR_INVALID_INTERFACE
  ErrMultipleInterfaces: 59, // VIR_ERR_MULTIPLE_INTERFACES
  WarNoNwfilter: 60, // VIR_WAR_NO_NWFILTER
  ErrInvalidNwfilter: 61, // VIR_ERR_INVALID_NWFILTER
  ErrNoNwfilter: 62, // VIR_ERR_NO_NWFILTER
  ErrBuildFirewall: 63, // VIR_ERR_BUILD_FIREWALL
  WarNoSecret: 64, // VIR_WAR_NO_SECRET
  ErrInvalidSecret: 65, // VIR_ERR_INVALID_SECRET
  ErrNoSecret: 66, // VIR_ERR_NO_SECRET
  ErrConfigUnsupported: 67, // VIR_ERR_CONFIG_UNSUPPORTED
  ErrOperationTimeout: 68, // VIR_ERR_OPERATION_TIMEOUT
  ErrMigratePersistFailed: 69, // VIR_ERR_MIGRATE_PERSIST_FAILED
  ErrHookScriptFailed: 70, // VIR_ERR_HOOK_SCRIPT_FAILED
  ErrInvalidDomainSnapshot: 71, // VIR_ERR_INVALID_DOMAIN_SNAPSHOT
  ErrNoDomainSnapshot: 72, // VIR_ERR_NO_DOMAIN_SNAPSHOT
  ErrInvalidStream: 73, // VIR_ERR_INVALID_STREAM
  ErrArgumentUnsupported: 74, // VIR_ERR_ARGUMENT_UNSUPPORTED
  ErrStorageProbeFailed: 75, // VIR_ERR_STORAGE_PROBE_FAILED
  ErrStoragePoolBuilt: 76, // VIR_ERR_STORAGE_POOL_BUILT
  ErrSnapshotRevertRisky: 77, // VIR_ERR_SNAPSHOT_REVERT_RISKY
  ErrOperationAborted: 78, // VIR_ERR_OPERATION_ABORTED
  ErrAuthCancelled: 79, // VIR_ERR_AUTH_CANCELLED
  ErrNoDomainMetadata: 80, // VIR_ERR_NO_DOMAIN_METADATA
  ErrMigrateUnsafe: 81, // VIR_ERR_MIGRATE_UNSAFE
  ErrOverflow: 82, // VIR_ERR_OVERFLOW
  ErrBlockCopyActive: 83, // VIR_ERR_BLOCK_COPY_ACTIVE
  ErrOperationUnsupported: 84, // VIR_ERR_OPERATION_UNSUPPORTED
  ErrSSH: 85, // VIR_ERR_SSH
  ErrAgentUnresponsive: 86, // VIR_ERR_AGENT_UNRESPONSIVE
  ErrResourceBusy: 87, // VIR_ERR_RESOURCE_BUSY
  ErrAccessDenied: 88, // VIR_ERR_ACCESS_DENIED
  ErrDbusService: 89, // VIR_ERR_DBUS_SERVICE
  ErrStorageVolExist: 90, // VIR_ERR_STORAGE_VOL_EXIST
  ErrCPUIncompatible: 91, // VIR_ERR_CPU_INCOMPATIBLE
  ErrXMLInvalidSchema: 92, // VIR_ERR_XML_INVALID_SCHEMA
  ErrMigrateFinishOk: 93, // VIR_ERR_MIGRATE_FINISH_OK
  ErrAuthUnavailable: 94, // VIR_ERR_AUTH_UNAVAILABLE
  ErrNoServer: 95, // VIR_ERR_NO_SERVER
  ErrNoClient: 96, // VIR_ERR_NO_CLIENT
  ErrAgentUnsynced: 97, // VIR_ERR_AGENT_UNSYNCED
  ErrLibssh: 98, // VIR_ERR_LIBSSH
  ErrDeviceMissing: 99, // VIR_ERR_DEVICE_MISSING
  ErrInvalidNwfilterBinding: 100, // VIR_ERR_INVALID_NWFILTER_BINDING
  ErrNoNwfilterBinding: 101, // VIR_ERR_NO_NWFILTER_BINDING
  ErrInvalidDomainCheckpoint: 102, // VIR_ERR_INVALID_DOMAIN_CHECKPOINT
  ErrNoDomainCheckpoint: 103, // VIR_ERR_NO_DOMAIN_CHECKPOINT
  ErrNoDomainBackup: 104, // VIR_ERR_NO_DOMAIN_BACKUP
  ErrInvalidNetworkPort: 105, // VIR_ERR_INVALID_NETWORK_PORT
  ErrNetworkPortExist: 106, // VIR_ERR_NETWORK_PORT_EXIST
  ErrNoNetworkPort: 107, // VIR_ERR_NO_NETWORK_PORT
  ErrNoHostname: 108, // VIR_ERR_NO_HOSTNAME
  ErrCheckpointInconsistent: 109, // VIR_ERR_CHECKPOINT_INCONSISTENT
  ErrMultipleDomains: 110, // VIR_ERR_MULTIPLE_DOMAINS
} as const;

export type LibvirtErrorCodeName = keyof typeof libvirtErrorCodes;

export const libvirtErrorDomains = {
  FromNone: 0,
  FromXen: 1,
  FromXend: 2,
  FromXenstore: 3,
  FromSexpr: 4,
  FromXML: 5,
  FromDom: 6,
  FromRPC: 7,
  FromProxy: 8,
  FromConf: 9,
  FromQemu: 10,
  FromNet: 11,
  FromTest: 12,
  FromRemote: 13,
  FromOpenvz: 14,
  FromXenxm: 15,
  FromStatsLinux: 16,
  FromLxc: 17,
  FromStorage: 18,
  FromNetwork: 19,
  FromDomain: 20,
  FromUml: 21,
  FromNodedev: 22,
  FromXenInotify: 23,
  FromSecurity: 24,
  FromVbox: 25,
  FromInterface: 26,
  FromOne: 27,
  FromESX: 28,
  FromPhyp: 29,
  FromSecret: 30,
  FromCPU: 31,
  FromXenapi: 32,
  FromNwfilter: 33,
  FromHook: 34,
  FromDomainSnapshot: 35,
  FromAudit: 36,
  FromSysinfo: 37,
  FromStreams: 38,
  FromVmware: 39,
  FromEvent: 40,
  FromLibxl: 41,
  FromLocking: 42,
  FromHyperv: 43,
  FromCapabilities: 44,
  FromURI: 45,
  FromAuth: 46,
  FromDbus: 47,
  FromParallels: 48,
  FromDevice: 49,
  FromSSH: 50,
  FromLockspace: 51,
  FromInitctl: 52,
  FromIdentity: 53,
  FromCgroup: 54,
  FromAccess: 55,
  FromSystemd: 56,
  FromBhyve: 57,
  FromCrypto: 58,
  FromFirewall: 59,
  FromPolkit: 60,
  FromThread: 61,
  FromAdmin: 62,
  FromLogging: 63,
  FromXenxl: 64,
  FromPerf: 65,
  FromLibssh: 66,
  FromResctrl: 67,
  FromFirewalld: 68,
  FromDomainCheckpoint: 69,
  FromTpm: 70,
  FromBpf: 71,
  FromCh: 72,
} as const;

export type LibvirtErrorDomainName = keyof typeof libvirtErrorDomains;

const invert = <T extends Record<string, number>>(table: T): ReadonlyMap<number, keyof T & string> =>
  new Map(Object.entries(table).map(([name, value]) => [value, name as keyof T & string]));

const codeNames = invert(libvirtErrorCodes);
const domainNames = invert(libvirtErrorDomains);

/** `ErrNoDomain` for 42; `ErrUnknown(123)` for a code this table does not know yet. */
export function libvirtErrorCodeName(code: number): string {
  return codeNames.get(code) ?? `ErrUnknown(${code})`;
}

/** `FromQemu` for 10; `FromUnknown(99)` for a domain this table does not know yet. */
export function libvirtErrorDomainName(domain: number): string {
  return domainNames.get(domain) ?? `FromUnknown(${domain})`;
}
