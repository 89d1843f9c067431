// Typed parameters (remote_typed_param) as values, and the stats groups of
// CONNECT_GET_ALL_DOMAIN_STATS read out of them. libvirt names the fields with dotted keys
// ("cpu.time", "net.0.rx.bytes", see virConnectGetAllDomainStats); 64-bit counters stay bigint,
// so a CPU time past 2^53 ns (104 days) keeps counting exactly.
import type { Domain, TypedParam } from './protocol';
import { TypedParamType } from './protocol';

export type TypedParamValue = number | bigint | boolean | string;

/** A typed parameter's value: LLONG/ULLONG as bigint, BOOLEAN as boolean, the rest as they are. */
export function typedParamValue(param: TypedParam): TypedParamValue {
  const { type, value } = param.value;
  return type === TypedParamType.Boolean ? value !== 0 : value;
}

/** The parameters as a record by field name (libvirt never repeats a field in one list). */
export function typedParamRecord(params: TypedParam[]): Record<string, TypedParamValue> {
  return Object.fromEntries(params.map((param) => [param.field, typedParamValue(param)]));
}

export interface InterfaceStats {
  name: string;
  rxBytes: bigint;
  rxPackets: bigint;
  rxErrors: bigint;
  rxDrops: bigint;
  txBytes: bigint;
  txPackets: bigint;
  txErrors: bigint;
  txDrops: bigint;
}

export interface BlockStats {
  name: string;
  path?: string;
  readBytes: bigint;
  readRequests: bigint;
  writeBytes: bigint;
  writeRequests: bigint;
  /** bytes the host allocated for the image, when libvirt reports it */
  allocation?: bigint;
  capacity?: bigint;
}

export interface DomainStats {
  dom: Domain;
  /** Every field as libvirt sent it, including the groups below and any this client does not read. */
  params: Record<string, TypedParamValue>;
  /** "state" group: virDomainState and its reason. */
  state?: { state: number; reason: number };
  /** "cpu-total" group, in nanoseconds. */
  cpu?: { timeNs: bigint; userNs?: bigint; systemNs?: bigint };
  /** "balloon" group, in KiB. */
  balloon?: { currentKiB?: bigint; maximumKiB?: bigint; rssKiB?: bigint; availableKiB?: bigint; usableKiB?: bigint };
  /** "interface" group, one per NIC in the order libvirt numbers them. */
  interfaces?: InterfaceStats[];
  /** "block" group, one per disk. */
  blocks?: BlockStats[];
}

type Params = Record<string, TypedParamValue>;

const counter = (params: Params, key: string): bigint | undefined => {
  const value = params[key];
  return typeof value === 'bigint' ? value : typeof value === 'number' ? BigInt(value) : undefined;
};
const integer = (params: Params, key: string): number | undefined => {
  const value = params[key];
  return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : undefined;
};
const text = (params: Params, key: string): string | undefined => {
  const value = params[key];
  return typeof value === 'string' ? value : undefined;
};

/** The numbered entries of a group ("net.count", then "net.<i>.*"), or undefined without a count. */
function numbered<T>(params: Params, group: string, read: (prefix: string) => T): T[] | undefined {
  const count = integer(params, `${group}.count`);
  if (count === undefined) return undefined;
  return Array.from({ length: count }, (_, index) => read(`${group}.${index}.`));
}

const withoutUndefined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;

/** One remote_domain_stats_record read into groups. */
export function domainStatsOf(record: { dom: Domain; params: TypedParam[] }): DomainStats {
  const params = typedParamRecord(record.params);
  const stats: DomainStats = { dom: record.dom, params };
  const state = integer(params, 'state.state');
  if (state !== undefined) stats.state = { state, reason: integer(params, 'state.reason') ?? 0 };
  const cpuTime = counter(params, 'cpu.time');
  if (cpuTime !== undefined) {
    stats.cpu = withoutUndefined({ timeNs: cpuTime, userNs: counter(params, 'cpu.user'), systemNs: counter(params, 'cpu.system') });
  }
  if (Object.keys(params).some((key) => key.startsWith('balloon.'))) {
    stats.balloon = withoutUndefined({
      currentKiB: counter(params, 'balloon.current'),
      maximumKiB: counter(params, 'balloon.maximum'),
      rssKiB: counter(params, 'balloon.rss'),
      availableKiB: counter(params, 'balloon.available'),
      usableKiB: counter(params, 'balloon.usable'),
    });
  }
  const interfaces = numbered(params, 'net', (prefix) => ({
    name: text(params, `${prefix}name`) ?? '',
    rxBytes: counter(params, `${prefix}rx.bytes`) ?? 0n,
    rxPackets: counter(params, `${prefix}rx.pkts`) ?? 0n,
    rxErrors: counter(params, `${prefix}rx.errs`) ?? 0n,
    rxDrops: counter(params, `${prefix}rx.drop`) ?? 0n,
    txBytes: counter(params, `${prefix}tx.bytes`) ?? 0n,
    txPackets: counter(params, `${prefix}tx.pkts`) ?? 0n,
    txErrors: counter(params, `${prefix}tx.errs`) ?? 0n,
    txDrops: counter(params, `${prefix}tx.drop`) ?? 0n,
  }));
  if (interfaces) stats.interfaces = interfaces;
  const blocks = numbered(params, 'block', (prefix) =>
    withoutUndefined({
      name: text(params, `${prefix}name`) ?? '',
      path: text(params, `${prefix}path`),
      readBytes: counter(params, `${prefix}rd.bytes`) ?? 0n,
      readRequests: counter(params, `${prefix}rd.reqs`) ?? 0n,
      writeBytes: counter(params, `${prefix}wr.bytes`) ?? 0n,
      writeRequests: counter(params, `${prefix}wr.reqs`) ?? 0n,
      allocation: counter(params, `${prefix}allocation`),
      capacity: counter(params, `${prefix}capacity`),
    }),
  );
  if (blocks) stats.blocks = blocks;
  return stats;
}

export interface NodeInfo {
  /** CPU model, e.g. "x86_64" */
  model: string;
  memoryKiB: bigint;
  cpus: number;
  mhz: number;
  nodes: number;
  sockets: number;
  cores: number;
  threads: number;
}

/** remote_node_get_info_ret's `char model[32]` (one char per int): the NUL-terminated text. */
export function modelText(chars: number[]): string {
  const end = chars.indexOf(0);
  return Buffer.from((end < 0 ? chars : chars.slice(0, end)).map((char) => char & 0xff)).toString('latin1');
}
