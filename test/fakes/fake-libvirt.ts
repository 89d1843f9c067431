// An in-memory libvirt for the kvm2 provider's unit tests: a FakeHypervisor holds pools, volumes
// (content, format, capacity, backing path) and domains (state, XML, metadata, addresses per
// source); FakeConnection implements the LibvirtAPI seam over it. Failures are real LibvirtError
// objects with libvirt's codes, injectable per method (always or a number of times, optionally
// only for one subject), an upload hook can break a stream part way, and every RPC lands in a
// call log (with the connection it ran on) so tests can count and order them.
import { randomBytes } from 'node:crypto';
import {
  ConnectionKilledError,
  DomainInterfaceAddressesSource,
  DomainMetadataType,
  DomainState,
  DomainUndefineFlags,
  LibvirtError,
  libvirtErrorCodes,
  StoragePoolState,
  UploadSourceError,
  type Domain,
  type DomainInterface,
  type LibvirtErrorCodeName,
  type StoragePool,
  type StorageVol,
} from '@/server/libvirt';
import type { LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { parseDomainXML, parseVolumeXML } from '@/server/providers/kvm2/xml-parse';
import { buildXml, childElement, childTags, parseXml, type XmlElement } from '@/server/providers/kvm2/xml-codec';

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

type AddressAnswer = DomainInterface[] | LibvirtErrorCodeName | Error;

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

export interface UploadHookInfo {
  volume: string;
  receivedBytes: number;
  chunk: Buffer;
}

const errorDomainByCode: Partial<Record<LibvirtErrorCodeName, number>> = {
  ErrNoStorageVol: 18,
  ErrNoStoragePool: 18,
  ErrStorageVolExist: 18,
};

/** A LibvirtError as libvirtd would send it. */
export function libvirtError(codeName: LibvirtErrorCodeName, message: string, procedure = 'fake'): LibvirtError {
  return new LibvirtError(procedure, {
    code: libvirtErrorCodes[codeName],
    domain: errorDomainByCode[codeName] ?? 10,
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
const gib = 1024 ** 3;

/** One libvirtd: what every connection to it sees. */
export class FakeHypervisor {
  readonly pools = new Map<string, FakePool>();
  readonly domains = new Map<string, FakeDomain>();
  readonly calls: CallRecord[] = [];
  hostname = 'fake-hypervisor';
  libVersion = 9_000_000;
  /** virt types the domain capabilities offer */
  virtTypes: string[] = ['qemu', 'kvm'];
  uploadHook: ((info: UploadHookInfo) => void) | undefined;
  private readonly injections = new Map<FakeMethod, Injection[]>();
  private nextDomainId = 1;

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

  addVolume(volume: Partial<FakeVolume> & { name: string; content?: Buffer | string }, poolName = 'default'): FakeVolume {
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

  domainIdOf(domain: FakeDomain): number {
    return domain.state === DomainState.Running || domain.state === DomainState.Paused ? this.nextDomainId++ : -1;
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

  clearFailures(): void {
    this.injections.clear();
  }

  /** Records the call and throws an injected failure when one applies. */
  enter(record: CallRecord): void {
    this.calls.push(record);
    const list = this.injections.get(record.method) ?? [];
    const hit = list.find((entry) => entry.remaining > 0 && (entry.subject === undefined || entry.subject === record.subject));
    if (!hit) return;
    hit.remaining -= 1;
    throw hit.error();
  }

  count(method?: FakeMethod, connection?: string): number {
    return this.calls.filter((call) => (method === undefined || call.method === method) && (connection === undefined || call.connection === connection))
      .length;
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

const isActive = (state: number) => state === DomainState.Running || state === DomainState.Blocked || state === DomainState.Paused;

/** The metadata elements of a domain XML, keyed by their namespace URI. */
function metadataElements(xml: string): Map<string, string> {
  const found = new Map<string, string>();
  const metadata = childElement(childElement(parseXml(xml, 'domain XML'), 'domain'), 'metadata');
  if (!metadata) return found;
  for (const tag of childTags(metadata)) {
    const value = metadata[tag];
    if (typeof value !== 'object' || Array.isArray(value)) continue;
    const prefix = tag.includes(':') ? tag.slice(0, tag.indexOf(':')) : '';
    const uri = value[prefix ? `@_xmlns:${prefix}` : '@_xmlns'];
    if (typeof uri === 'string') found.set(uri, buildXml({ [tag]: value } as XmlElement).trim());
  }
  return found;
}

/** One connection to a FakeHypervisor; `label` names it in the call log. */
export class FakeConnection implements LibvirtAPI {
  alive = true;

  constructor(
    readonly hypervisor: FakeHypervisor,
    readonly label = 'pooled',
  ) {}

  /** Ends the connection the way a killed link does: later calls fail with ConnectionKilledError. */
  kill(reason = 'killed by the test'): void {
    this.alive = false;
    this.killReason = reason;
  }

  private killReason = '';

  private enter(method: FakeMethod, subject?: string): void {
    if (!this.alive) throw new ConnectionKilledError(this.killReason);
    this.hypervisor.enter({ method, subject, connection: this.label });
  }

  private domainRef(domain: FakeDomain): Domain {
    return { name: domain.name, uuid: domain.uuid, id: this.hypervisor.domainIdOf(domain) };
  }

  private findDomain(procedure: string, name: string): FakeDomain {
    const domain = this.hypervisor.domains.get(name);
    if (!domain) throw libvirtError('ErrNoDomain', `Domain not found: no domain with matching name '${name}'`, procedure);
    return domain;
  }

  private findPool(procedure: string, name: string): FakePool {
    const pool = this.hypervisor.pools.get(name);
    if (!pool) throw libvirtError('ErrNoStoragePool', `Storage pool not found: no storage pool with matching name '${name}'`, procedure);
    return pool;
  }

  private activePool(procedure: string, name: string): FakePool {
    const pool = this.findPool(procedure, name);
    if (pool.state !== StoragePoolState.Running) {
      throw libvirtError('ErrOperationInvalid', `Requested operation is not valid: storage pool '${name}' is not active`, procedure);
    }
    return pool;
  }

  private findVolume(procedure: string, ref: { pool: string; name: string }): FakeVolume {
    const volume = this.activePool(procedure, ref.pool).volumes.get(ref.name);
    if (!volume) throw libvirtError('ErrNoStorageVol', `Storage volume not found: no storage vol with matching name '${ref.name}'`, procedure);
    return volume;
  }

  private volumeRef(pool: FakePool, volume: FakeVolume): StorageVol {
    const path = this.hypervisor.pathOf(pool, volume.name);
    return { pool: pool.name, name: volume.name, key: path };
  }

  // ---- connect ----

  async connectGetLibVersion(): Promise<number> {
    this.enter('connectGetLibVersion');
    return this.hypervisor.libVersion;
  }

  async connectGetHostname(): Promise<string> {
    this.enter('connectGetHostname');
    return this.hypervisor.hostname;
  }

  async connectGetDomainCapabilities(options: { virttype?: string | null } = {}): Promise<string> {
    this.enter('connectGetDomainCapabilities');
    const wanted = options.virttype ?? 'qemu';
    if (!this.hypervisor.virtTypes.includes(wanted)) {
      throw libvirtError('ErrInvalidArg', `invalid argument: KVM is not supported by '/usr/bin/qemu-system-x86_64' on this host`);
    }
    return `<domainCapabilities><domain>${wanted}</domain><arch>x86_64</arch></domainCapabilities>`;
  }

  async connectListAllDomains(): Promise<Domain[]> {
    this.enter('connectListAllDomains');
    return [...this.hypervisor.domains.values()].map((domain) => this.domainRef(domain));
  }

  // ---- domain ----

  async domainLookupByName(name: string): Promise<Domain> {
    this.enter('domainLookupByName', name);
    return this.domainRef(this.findDomain('domainLookupByName', name));
  }

  async domainDefineXmlFlags(xml: string): Promise<Domain> {
    const description = parseDomainXML(xml);
    this.enter('domainDefineXmlFlags', description.name);
    const existing = this.hypervisor.domains.get(description.name);
    const domain =
      existing ??
      this.hypervisor.addDomain({ name: description.name, hasNvram: description.firmware === 'uefi' });
    domain.xml = xml;
    domain.persistent = true;
    domain.metadata = metadataElements(xml);
    return this.domainRef(domain);
  }

  async domainCreate(ref: Domain): Promise<void> {
    this.enter('domainCreate', ref.name);
    const domain = this.findDomain('domainCreate', ref.name);
    if (isActive(domain.state)) throw libvirtError('ErrOperationInvalid', 'Requested operation is not valid: domain is already running', 'domainCreate');
    for (const disk of parseDomainXML(domain.xml).disks) {
      if (disk.sourceFile !== undefined && !this.hypervisor.volumeAtPath(disk.sourceFile)) {
        throw libvirtError('ErrInternalError', `Cannot access storage file '${disk.sourceFile}': No such file or directory`, 'domainCreate');
      }
    }
    domain.state = domain.startsAs;
  }

  async domainDestroy(ref: Domain): Promise<void> {
    this.enter('domainDestroy', ref.name);
    const domain = this.findDomain('domainDestroy', ref.name);
    if (!isActive(domain.state)) throw libvirtError('ErrOperationInvalid', 'Requested operation is not valid: domain is not running', 'domainDestroy');
    domain.state = DomainState.Shutoff;
    if (!domain.persistent) this.hypervisor.domains.delete(domain.name);
  }

  async domainUndefineFlags(ref: Domain, options: { flags?: number } = {}): Promise<void> {
    this.enter('domainUndefineFlags', ref.name);
    const domain = this.findDomain('domainUndefineFlags', ref.name);
    if (domain.hasNvram && !((options.flags ?? 0) & DomainUndefineFlags.Nvram)) {
      throw libvirtError('ErrOperationInvalid', 'Requested operation is not valid: cannot undefine domain with nvram', 'domainUndefineFlags');
    }
    if (isActive(domain.state)) domain.persistent = false;
    else this.hypervisor.domains.delete(domain.name);
  }

  async domainGetState(ref: Domain): Promise<{ state: number; reason: number }> {
    this.enter('domainGetState', ref.name);
    return { state: this.findDomain('domainGetState', ref.name).state, reason: 0 };
  }

  async domainGetXmlDesc(ref: Domain): Promise<string> {
    this.enter('domainGetXmlDesc', ref.name);
    return this.findDomain('domainGetXmlDesc', ref.name).xml;
  }

  async domainGetMetadata(ref: Domain, options: { type: number; uri?: string | null }): Promise<string> {
    this.enter('domainGetMetadata', ref.name);
    const domain = this.findDomain('domainGetMetadata', ref.name);
    const element = options.type === DomainMetadataType.Element ? domain.metadata.get(options.uri ?? '') : undefined;
    if (element === undefined) {
      throw libvirtError('ErrNoDomainMetadata', 'metadata not found: Requested metadata element is not present', 'domainGetMetadata');
    }
    return element;
  }

  async domainInterfaceAddresses(ref: Domain, options: { source: number }): Promise<DomainInterface[]> {
    this.enter('domainInterfaceAddresses', ref.name);
    const domain = this.findDomain('domainInterfaceAddresses', ref.name);
    if (!isActive(domain.state)) throw libvirtError('ErrOperationInvalid', 'Requested operation is not valid: domain is not running', 'domainInterfaceAddresses');
    const fallback: AddressAnswer = options.source === DomainInterfaceAddressesSource.Agent ? 'ErrAgentUnresponsive' : [];
    const answer = domain.addresses[options.source] ?? fallback;
    if (typeof answer === 'string') throw libvirtError(answer, `Guest agent is not responding: QEMU guest agent is not connected`, 'domainInterfaceAddresses');
    if (answer instanceof Error) throw answer;
    return answer;
  }

  // ---- storage pool ----

  async storagePoolLookupByName(name: string): Promise<StoragePool> {
    this.enter('storagePoolLookupByName', name);
    const pool = this.findPool('storagePoolLookupByName', name);
    return { name: pool.name, uuid: pool.uuid };
  }

  async storagePoolGetInfo(ref: StoragePool) {
    this.enter('storagePoolGetInfo', ref.name);
    const pool = this.findPool('storagePoolGetInfo', ref.name);
    const running = pool.state === StoragePoolState.Running;
    const available = running ? this.hypervisor.available(pool) : 0;
    return { state: pool.state, capacity: running ? pool.capacity : 0, allocation: running ? pool.capacity - available : 0, available };
  }

  async storagePoolRefresh(ref: StoragePool): Promise<void> {
    this.enter('storagePoolRefresh', ref.name);
    this.activePool('storagePoolRefresh', ref.name);
  }

  async storagePoolListAllVolumes(ref: StoragePool): Promise<StorageVol[]> {
    this.enter('storagePoolListAllVolumes', ref.name);
    const pool = this.activePool('storagePoolListAllVolumes', ref.name);
    return [...pool.volumes.values()].map((volume) => this.volumeRef(pool, volume));
  }

  // ---- storage volume ----

  async storageVolLookupByName(target: { pool: StoragePool; name: string }): Promise<StorageVol> {
    this.enter('storageVolLookupByName', target.name);
    const pool = this.activePool('storageVolLookupByName', target.pool.name);
    return this.volumeRef(pool, this.findVolume('storageVolLookupByName', { pool: pool.name, name: target.name }));
  }

  async storageVolCreateXml(target: { pool: StoragePool; xml: string }): Promise<StorageVol> {
    const spec = parseVolumeXML(target.xml);
    this.enter('storageVolCreateXml', spec.name);
    const pool = this.activePool('storageVolCreateXml', target.pool.name);
    if (pool.volumes.has(spec.name)) {
      throw libvirtError('ErrStorageVolExist', `storage volume '${spec.name}' exists already`, 'storageVolCreateXml');
    }
    if (spec.backingPath !== undefined && !this.hypervisor.volumeAtPath(spec.backingPath)) {
      throw libvirtError('ErrInternalError', `Cannot access backing file '${spec.backingPath}'`, 'storageVolCreateXml');
    }
    const volume = this.hypervisor.addVolume(
      { name: spec.name, format: spec.format ?? 'raw', capacity: spec.capacityBytes ?? 0, backingPath: spec.backingPath },
      pool.name,
    );
    return this.volumeRef(pool, volume);
  }

  async storageVolDelete(ref: StorageVol): Promise<void> {
    this.enter('storageVolDelete', ref.name);
    const pool = this.activePool('storageVolDelete', ref.pool);
    this.findVolume('storageVolDelete', ref);
    pool.volumes.delete(ref.name);
  }

  async storageVolGetPath(ref: StorageVol): Promise<string> {
    this.enter('storageVolGetPath', ref.name);
    this.findVolume('storageVolGetPath', ref);
    return this.hypervisor.pathOf(this.findPool('storageVolGetPath', ref.pool), ref.name);
  }

  async storageVolGetInfo(ref: StorageVol) {
    this.enter('storageVolGetInfo', ref.name);
    const volume = this.findVolume('storageVolGetInfo', ref);
    return { type: 0, capacity: volume.capacity, allocation: volume.content.length };
  }

  async storageVolGetXmlDesc(ref: StorageVol): Promise<string> {
    this.enter('storageVolGetXmlDesc', ref.name);
    const volume = this.findVolume('storageVolGetXmlDesc', ref);
    const path = this.hypervisor.pathOf(this.findPool('storageVolGetXmlDesc', ref.pool), ref.name);
    const backing = volume.backingPath ? `<backingStore><path>${volume.backingPath}</path></backingStore>` : '';
    return `<volume><name>${volume.name}</name><capacity unit="bytes">${volume.capacity}</capacity><target><path>${path}</path><format type="${volume.format}"/></target>${backing}</volume>`;
  }

  /** Writes what the source yields; a failing source ends it cleanly (UploadSourceError afterwards), as the real client does. */
  async storageVolUpload(
    ref: StorageVol,
    options: { source: AsyncIterable<Uint8Array>; offset?: number; length?: number; signal?: AbortSignal },
  ): Promise<{ bytesSent: number }> {
    this.enter('storageVolUpload', ref.name);
    const volume = this.findVolume('storageVolUpload', ref);
    const received: Buffer[] = [];
    let receivedBytes = 0;
    let sourceError: { error: unknown } | undefined;
    const iterator = options.source[Symbol.asyncIterator]();
    try {
      for (;;) {
        let step: IteratorResult<Uint8Array>;
        try {
          step = await iterator.next();
        } catch (error) {
          sourceError = { error };
          break;
        }
        if (step.done) break;
        if (!this.alive) throw new ConnectionKilledError(this.killReason);
        const chunk = Buffer.from(step.value);
        received.push(chunk);
        receivedBytes += chunk.length;
        this.hypervisor.uploadHook?.({ volume: ref.name, receivedBytes, chunk });
      }
    } finally {
      // libvirt keeps what arrived, whether the transfer finished or broke.
      volume.content = Buffer.concat(received);
    }
    if (sourceError) throw new UploadSourceError(receivedBytes, { cause: sourceError.error });
    return { bytesSent: receivedBytes };
  }

  async *storageVolDownload(ref: StorageVol, options: { offset?: number; length?: number } = {}): AsyncIterable<Buffer> {
    this.enter('storageVolDownload', ref.name);
    const volume = this.findVolume('storageVolDownload', ref);
    const start = options.offset ?? 0;
    const end = options.length ? start + options.length : volume.content.length;
    yield Buffer.from(volume.content.subarray(start, end));
  }
}
