// The shared data types of the remote program (src/remote/remote_protocol.x), named after
// their .x structs: the procedure table (procedures.ts) and the event messages (protocol.ts) use them.
import { type ShapeValue } from './xdr';
import { xdrArray, xdrDouble, xdrHyper, xdrInt, xdrOpaque, xdrOptional, xdrString, xdrStruct, xdrUhyper, xdrUint, xdrUnion } from './xdr-shapes';

// ---- shared data types ------------------------------------------------------------------------

export const REMOTE_STRING_MAX = 4194304;
export const REMOTE_DOMAIN_LIST_MAX = 16384;
export const REMOTE_STORAGE_POOL_LIST_MAX = 4096;
export const REMOTE_STORAGE_VOL_LIST_MAX = 16384;
export const REMOTE_NETWORK_LIST_MAX = 16384;
export const REMOTE_INTERFACE_LIST_MAX = 16384;
export const REMOTE_AUTH_TYPE_LIST_MAX = 20;
export const REMOTE_DOMAIN_INTERFACE_MAX = 2048;
export const REMOTE_DOMAIN_IP_ADDR_MAX = 2048;
export const VIR_UUID_BUFLEN = 16;
export const REMOTE_NODE_CPU_STATS_MAX = 16;
export const REMOTE_NODE_MEMORY_STATS_MAX = 16;
export const REMOTE_CONNECT_GET_ALL_DOMAIN_STATS_MAX = 4096;

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
export const nodeStatsParam = xdrStruct({ field: nonnullString, value: xdrUhyper });

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
export const domainInterface = xdrStruct({
  name: nonnullString,
  hwaddr: optionalString,
  addrs: xdrArray(domainIpAddr, REMOTE_DOMAIN_IP_ADDR_MAX),
});
