// libvirt's public enums and flags used with the declared procedures (include/libvirt/*.h,
// checked against python3-libvirt 9.0). Note that the pool list flags run opposite to the domain
// list flags: domains ACTIVE=1 INACTIVE=2, pools INACTIVE=1 ACTIVE=2.

/** virDomainState */
export const DomainState = {
  NoState: 0,
  Running: 1,
  Blocked: 2,
  Paused: 3,
  Shutdown: 4,
  Shutoff: 5,
  Crashed: 6,
  PmSuspended: 7,
} as const;

/** virStoragePoolState */
export const StoragePoolState = { Inactive: 0, Building: 1, Running: 2, Degraded: 3, Inaccessible: 4 } as const;

/** virsh's word for each pool state (`virsh pool-info` "State:"). */
export const storagePoolStateWords: Record<number, string> = {
  [StoragePoolState.Inactive]: 'inactive',
  [StoragePoolState.Building]: 'building',
  [StoragePoolState.Running]: 'running',
  [StoragePoolState.Degraded]: 'degraded',
  [StoragePoolState.Inaccessible]: 'inaccessible',
};

/** virConnectListAllDomainsFlags */
export const ConnectListAllDomainsFlags = {
  Active: 1,
  Inactive: 2,
  Persistent: 4,
  Transient: 8,
  Running: 16,
  Paused: 32,
  Shutoff: 64,
  Other: 128,
} as const;

/** virConnectListAllStoragePoolsFlags */
export const ConnectListAllStoragePoolsFlags = {
  Inactive: 1,
  Active: 2,
  Persistent: 4,
  Transient: 8,
  Autostart: 16,
  NoAutostart: 32,
  Dir: 64,
} as const;

/** virDomainMetadataType */
export const DomainMetadataType = { Description: 0, Title: 1, Element: 2 } as const;

/** virDomainModificationImpact (VIR_DOMAIN_AFFECT_*) */
export const DomainAffect = { Current: 0, Live: 1, Config: 2 } as const;

/** virDomainUndefineFlagsValues */
export const DomainUndefineFlags = {
  ManagedSave: 1,
  SnapshotsMetadata: 2,
  Nvram: 4,
  KeepNvram: 8,
  CheckpointsMetadata: 16,
  Tpm: 32,
  KeepTpm: 64,
} as const;

/** virDomainDefineFlags */
export const DomainDefineFlags = { Validate: 1 } as const;

/** virDomainXMLFlags */
export const DomainXmlFlags = { Secure: 1, Inactive: 2, UpdateCpu: 4, Migratable: 8 } as const;

/** virDomainInterfaceAddressesSource */
export const DomainInterfaceAddressesSource = { Lease: 0, Agent: 1, Arp: 2 } as const;

/** virIPAddrType */
export const IpAddrType = { IPv4: 0, IPv6: 1 } as const;

/** virStorageVolType */
export const StorageVolType = { File: 0, Block: 1, Dir: 2, Network: 3, Netdir: 4, Ploop: 5 } as const;

/** virStorageVolCreateFlags */
export const StorageVolCreateFlags = { PreallocMetadata: 1, Reflink: 2, Validate: 4 } as const;

/** virStorageVolDeleteFlags */
export const StorageVolDeleteFlags = { Normal: 0, Zeroed: 1, WithSnapshots: 2 } as const;

/** virStorageXMLFlags */
export const StorageXmlFlags = { Inactive: 1 } as const;

/** virDomainStatsTypes: which groups CONNECT_GET_ALL_DOMAIN_STATS returns. */
export const DomainStatsTypes = {
  State: 1,
  CpuTotal: 2,
  Balloon: 4,
  Vcpu: 8,
  Interface: 16,
  Block: 32,
  Perf: 64,
  Iothread: 128,
  Memory: 256,
} as const;

/** virConnectGetAllDomainStatsFlags: the domain list filters, plus its own. */
export const GetAllDomainStatsFlags = {
  ...ConnectListAllDomainsFlags,
  NoWait: 0x20000000,
  Backing: 0x40000000,
  EnforceStats: 0x80000000,
} as const;

/** VIR_NODE_CPU_STATS_ALL_CPUS / VIR_NODE_MEMORY_STATS_ALL_CELLS */
export const NODE_STATS_ALL = -1;

/** virDomainEventID (the ones this client decodes). */
export const DomainEventId = { Lifecycle: 0 } as const;

/** virDomainEventType: the `event` of a lifecycle event. */
export const DomainEventType = {
  Defined: 0,
  Undefined: 1,
  Started: 2,
  Suspended: 3,
  Resumed: 4,
  Stopped: 5,
  Shutdown: 6,
  PmSuspended: 7,
  Crashed: 8,
} as const;

/** The `detail` values that matter for each event (virDomainEvent*DetailType). */
export const DomainEventStoppedDetail = {
  Shutdown: 0,
  Destroyed: 1,
  Crashed: 2,
  Migrated: 3,
  Saved: 4,
  Failed: 5,
  FromSnapshot: 6,
} as const;
export const DomainEventSuspendedDetail = { Paused: 0, Migrated: 1, IoError: 2, Watchdog: 3, Restored: 4, FromSnapshot: 5, ApiError: 6 } as const;
export const DomainEventResumedDetail = { Unpaused: 0, Migrated: 1, FromSnapshot: 2 } as const;
export const DomainEventStartedDetail = { Booted: 0, Migrated: 1, Restored: 2, FromSnapshot: 3, Wakeup: 4 } as const;

/** virStoragePoolEventID */
export const StoragePoolEventId = { Lifecycle: 0, Refresh: 1 } as const;

/** virStoragePoolEventLifecycleType */
export const StoragePoolEventType = { Defined: 0, Undefined: 1, Started: 2, Stopped: 3, Created: 4, Deleted: 5 } as const;

/** virDomainConsoleFlags */
export const DomainConsoleFlags = {
  /** Take the console from whoever holds it (their stream fails). */
  Force: 1,
  /** Refuse a console whose device cannot be shared safely (anything but a pty). */
  Safe: 2,
} as const;
