// The state side of the in-memory libvirt (fake-libvirt.ts): one FakeHypervisor is one libvirtd
// with its pools, volumes and domains, the call log every connection to it writes, failure
// injection (per method, always or a number of times, optionally for one subject; or the call at
// a given position), and gates that hold a call until the test releases it.
import { randomBytes } from 'node:crypto';
import {
  DomainState,
  LibvirtError,
  libvirtErrorCodes,
  StoragePoolState,
  type DomainInterface,
  type DomainStats,
  type LibvirtErrorCodeName,
} from '@/server/libvirt';
import type { LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { FakeConsoles } from './fake-console';

export type FakeMethod = keyof LibvirtAPI;

export interface FakeVolume {
  name: string;
  format: string;
  capacity: number;
  content: Buffer;
  backingPath?: string;
}

export interface FakePool {
  name: string;
  uuid: Buffer;
  path: string;
  state: number;
  capacity: number;
  volumes: Map<string, FakeVolume>;
}

export type AddressAnswer = DomainInterface[] | LibvirtErrorCodeName | Error;

export interface FakeDomain {
  name: string;
  uuid: Buffer;
  state: number;
  /** false once undefined while still running (libvirt keeps it as a transient domain) */
  persistent: boolean;
  xml: string;
  /** namespace URI -> the element's XML, as DomainGetMetadata answers it */
  metadata: Map<string, string>;
  /** per DomainInterfaceAddressesSource; agent defaults to ErrAgentUnresponsive, arp and lease to [] */
  addresses: Partial<Record<number, AddressAnswer>>;
  /** the state DomainCreate leaves the domain in (default Running) */
  startsAs: number;
  hasNvram: boolean;
  /** what CONNECT_GET_ALL_DOMAIN_STATS answers beyond the state group while the domain runs */
  stats?: Pick<DomainStats, 'cpu' | 'balloon' | 'interfaces' | 'blocks'>;
}

export interface CallRecord {
  method: FakeMethod;
  /** domain, pool or volume name the call was about */
  subject?: string;
  connection: string;
}

interface Injection {
  error: () => Error;
  remaining: number;
  subject?: string;
}

/** Called before each upload packet is stored; throwing breaks the stream there (earlier packets stay). */
export interface UploadHookInfo {
  volume: string;
  /** bytes stored before this packet */
  receivedBytes: number;
  chunk: Buffer;
}

const errorDomainByCode: Partial<Record<LibvirtErrorCodeName, number>> = {
  ErrNoStorageVol: 18,
  ErrNoStoragePool: 18,
  ErrStorageVolExist: 18,
};

/** A LibvirtError as libvirtd would send it (a code number for codes without a name here). */
export function libvirtError(codeName: LibvirtErrorCodeName | number, message = 'libvirt said no', procedure = 'fake'): LibvirtError {
  const named = typeof codeName === 'string';
  return new LibvirtError(procedure, {
    code: named ? libvirtErrorCodes[codeName] : codeName,
    domain: (named ? errorDomainByCode[codeName] : undefined) ?? 10,
    message,
    level: 2,
    str1: null,
    str2: null,
    str3: null,
    int1: -1,
    int2: -1,
  });
}

const uuid = () => randomBytes(16);
/** Bytes per STREAM packet of an upload (libvirt's own packet size). */
export const uploadPacketBytes = 256 * 1024;
const gib = 1024 ** 3;

/** An event subscription of one fake connection: what the hypervisor's emit* calls reach. */
export interface FakeEventListener {
  kind: 'domainLifecycle' | 'poolLifecycle' | 'poolRefresh';
  deliver: (event: unknown) => void;
}

/** One libvirtd: what every connection to it sees. */
export class FakeHypervisor {
  readonly pools = new Map<string, FakePool>();
  readonly domains = new Map<string, FakeDomain>();
  readonly calls: CallRecord[] = [];
  hostname = 'fake-hypervisor';
  /** what NODE_GET_MEMORY_STATS answers, in KiB */
  memoryStatsKiB: Record<string, bigint> = { total: 8_388_608n, free: 2_097_152n, buffers: 262_144n, cached: 786_432n };
  /** what NODE_GET_CPU_STATS answers, cumulative nanoseconds */
  cpuStatsNs: Record<string, bigint> = { user: 4_000_000_000n, kernel: 1_000_000_000n, idle: 15_000_000_000n, iowait: 0n };
  cpus = 4;
  libVersion = 9_000_000;
  /** virt types the domain capabilities offer */
  virtTypes: string[] = ['qemu', 'kvm'];
  /** what ConnectListAllInterfaces answers, each with its XML; undefined: no interface driver (ErrNoSupport) */
  interfaces: Array<{ name: string; mac: string; xml: string }> | undefined = [];
  /** what ConnectListAllNetworks answers, each with its XML */
  networks: Array<{ name: string; xml: string }> = [];
  uploadHook: ((info: UploadHookInfo) => void) | undefined;
  /** Live event subscriptions of every connection (fake-libvirt.ts adds and removes them). */
  readonly eventListeners = new Set<FakeEventListener>();
  /** each domain's serial console, by domain name */
  readonly consoles = new FakeConsoles();
  private readonly injections = new Map<FakeMethod, Injection[]>();
  private readonly gates: Array<{ method: FakeMethod; subject?: string; arrived: () => void; opened: Promise<void> }> = [];
  private failingCall: { index: number; error: () => Error } | undefined;
  private nextDomainId = 1;
  private readonly runIds = new WeakMap<FakeDomain, number>();

  constructor(options: { pool?: string; poolCapacity?: number } = {}) {
    this.addPool({ name: options.pool ?? 'default', capacity: options.poolCapacity ?? 100 * gib });
  }

  addPool(options: { name: string; capacity?: number; state?: number; path?: string }): FakePool {
    const pool: FakePool = {
      name: options.name,
      uuid: uuid(),
      path: options.path ?? `/var/lib/libvirt/${options.name}`,
      state: options.state ?? StoragePoolState.Running,
      capacity: options.capacity ?? 100 * gib,
      volumes: new Map(),
    };
    this.pools.set(pool.name, pool);
    return pool;
  }

  pool(name = 'default'): FakePool {
    const pool = this.pools.get(name);
    if (!pool) throw new Error(`fake: no pool ${name}`);
    return pool;
  }

  addVolume(volume: Omit<Partial<FakeVolume>, 'content'> & { name: string; content?: Buffer | string }, poolName = 'default'): FakeVolume {
    const content = typeof volume.content === 'string' ? Buffer.from(volume.content) : (volume.content ?? Buffer.alloc(0));
    const created: FakeVolume = { format: 'raw', capacity: Math.max(content.length, 1), ...volume, content };
    this.pool(poolName).volumes.set(created.name, created);
    return created;
  }

  volume(name: string, poolName = 'default'): FakeVolume | undefined {
    return this.pools.get(poolName)?.volumes.get(name);
  }

  volumeNames(poolName = 'default'): string[] {
    return [...this.pool(poolName).volumes.keys()].sort();
  }

  addDomain(options: Partial<Omit<FakeDomain, 'metadata'>> & { name: string; metadata?: Record<string, string> }): FakeDomain {
    const domain: FakeDomain = {
      uuid: uuid(),
      state: DomainState.Shutoff,
      persistent: true,
      xml: `<domain type="qemu"><name>${options.name}</name></domain>`,
      addresses: {},
      startsAs: DomainState.Running,
      hasNvram: false,
      ...options,
      metadata: new Map(Object.entries(options.metadata ?? {})),
    };
    this.domains.set(domain.name, domain);
    return domain;
  }

  /** Sends a lifecycle event about `name` (DomainEventType, detail) to every subscription, as libvirtd does. */
  emitDomainLifecycle(name: string, event: number, detail = 0): void {
    const domain = this.domains.get(name);
    const dom = { name, uuid: domain?.uuid ?? Buffer.alloc(16), id: domain ? this.domainIdOf(domain) : -1 };
    this.emit('domainLifecycle', { dom, event, detail });
  }

  emitPoolLifecycle(name: string, event: number, detail = 0): void {
    this.emit('poolLifecycle', { pool: { name, uuid: this.pool(name).uuid }, event, detail });
  }

  emitPoolRefresh(name: string): void {
    this.emit('poolRefresh', { pool: { name, uuid: this.pool(name).uuid } });
  }

  private emit(kind: FakeEventListener['kind'], event: unknown): void {
    for (const listener of [...this.eventListeners]) if (listener.kind === kind) listener.deliver(event);
  }

  /** libvirt's runtime id: one per run, kept while the domain is active, a new one when it starts again. */
  domainIdOf(domain: FakeDomain): number {
    if (domain.state !== DomainState.Running && domain.state !== DomainState.Paused) {
      this.runIds.delete(domain);
      return -1;
    }
    const id = this.runIds.get(domain) ?? this.nextDomainId++;
    this.runIds.set(domain, id);
    return id;
  }

  /** Every call to `method` (about `subject`, when given) fails with `error` until cleared. */
  fail(method: FakeMethod, error: LibvirtErrorCodeName | Error, options: { times?: number; subject?: string } = {}): void {
    const make = () => (typeof error === 'string' ? libvirtError(error, `injected ${error}`, method) : error);
    const list = this.injections.get(method) ?? [];
    list.push({ error: make, remaining: options.times ?? Infinity, subject: options.subject });
    this.injections.set(method, list);
  }

  failOnce(method: FakeMethod, error: LibvirtErrorCodeName | Error, subject?: string): void {
    this.fail(method, error, { times: 1, subject });
  }

  /** The call at position `index` of the call log (0-based, counted since the last resetCalls) fails. */
  failCallAt(index: number, error: LibvirtErrorCodeName | Error): void {
    this.failingCall = { index, error: () => (typeof error === 'string' ? libvirtError(error, `injected ${error}`) : error) };
  }

  clearFailures(): void {
    this.injections.clear();
    this.failingCall = undefined;
  }

  /**
   * The next call to `method` (about `subject`) waits until `release` is called; `arrived`
   * resolves once it is waiting. The call then proceeds normally.
   */
  gate(method: FakeMethod, subject?: string): { arrived: Promise<void>; release: () => void } {
    let arrived!: () => void;
    let release!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const opened = new Promise<void>((resolve) => (release = resolve));
    this.gates.push({ method, subject, arrived, opened });
    return { arrived: arrival, release };
  }

  /** Records the call, waits at a gate set for it, and throws an injected failure when one applies. */
  async enter(record: CallRecord): Promise<void> {
    const index = this.calls.length;
    this.calls.push(record);
    const gateAt = this.gates.findIndex((gate) => gate.method === record.method && (gate.subject === undefined || gate.subject === record.subject));
    if (gateAt >= 0) {
      const [gate] = this.gates.splice(gateAt, 1);
      gate?.arrived();
      await gate?.opened;
    }
    if (this.failingCall?.index === index) throw this.failingCall.error();
    const list = this.injections.get(record.method) ?? [];
    const hit = list.find((entry) => entry.remaining > 0 && (entry.subject === undefined || entry.subject === record.subject));
    if (!hit) return;
    hit.remaining -= 1;
    throw hit.error();
  }

  count(method?: FakeMethod, connection?: string): number {
    return this.calls.filter((call) => (method === undefined || call.method === method) && (connection === undefined || call.connection === connection)).length;
  }

  resetCalls(): void {
    this.calls.length = 0;
  }

  /** Free bytes: capacity minus what the volumes hold (volumes are thin, as in a dir pool). */
  available(pool: FakePool): number {
    const used = [...pool.volumes.values()].reduce((sum, volume) => sum + volume.content.length, 0);
    return Math.max(0, pool.capacity - used);
  }

  pathOf(pool: FakePool, volume: string): string {
    return `${pool.path}/${volume}`;
  }

  /** The volume whose file is `path`, in any pool. */
  volumeAtPath(path: string): FakeVolume | undefined {
    for (const pool of this.pools.values()) {
      for (const volume of pool.volumes.values()) if (this.pathOf(pool, volume.name) === path) return volume;
    }
    return undefined;
  }
}
