// Noun-first typed wrappers over the procedure table, named like libvirt's C API
// (virDomainLookupByName -> domainLookupByName). Each takes at most a subject and an options
// object (flags plus the call's signal and budget) and returns the useful part of the reply.
import type { CallOptions, RpcConnection } from './client';
import { openConnection, type OpenOptions } from './connect';
import type { Domain, StoragePool, StorageVol } from './protocol';
import type { DownloadOptions, UploadOptions, UploadResult } from './stream';

export type { Domain, StoragePool, StorageVol };

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

export interface StoragePoolInfo {
  state: number;
  capacity: number;
  allocation: number;
  available: number;
}

export interface StorageVolInfo {
  type: number;
  capacity: number;
  allocation: number;
}

export interface DomainInterface {
  name: string;
  hwaddr: string | null;
  addrs: Array<{ type: number; addr: string; prefix: number }>;
}

export interface MetadataOptions extends FlagsOptions {
  /** virDomainMetadataType; DomainMetadataType.Element for a namespaced element. */
  type: number;
  /** The element's namespace URI (for Element). */
  uri?: string | null;
}

export interface SetMetadataOptions extends MetadataOptions {
  /** The XML to store, or null to remove it. */
  metadata: string | null;
  /** The namespace prefix the element is stored under (for Element). */
  key?: string | null;
}

export interface DomainCapabilitiesOptions extends FlagsOptions {
  emulatorbin?: string | null;
  arch?: string | null;
  machine?: string | null;
  virttype?: string | null;
}

export interface VolTransferOptions {
  offset?: number;
  /** 0 means to the end. */
  length?: number;
  flags?: number;
}

const flagsOf = (options: FlagsOptions): number => options.flags ?? 0;

export class LibvirtClient {
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

  // ---- connect ----------------------------------------------------------------------------------

  async connectGetLibVersion(options: CallOptions = {}): Promise<number> {
    return (await this.rpc.call('connectGetLibVersion', undefined, options)).lib_ver;
  }

  async connectGetHostname(options: CallOptions = {}): Promise<string> {
    return (await this.rpc.call('connectGetHostname', undefined, options)).hostname;
  }

  async connectGetCapabilities(options: CallOptions = {}): Promise<string> {
    return (await this.rpc.call('connectGetCapabilities', undefined, options)).capabilities;
  }

  async connectGetDomainCapabilities(options: DomainCapabilitiesOptions = {}): Promise<string> {
    const args = {
      emulatorbin: options.emulatorbin ?? null,
      arch: options.arch ?? null,
      machine: options.machine ?? null,
      virttype: options.virttype ?? null,
      flags: flagsOf(options),
    };
    return (await this.rpc.call('connectGetDomainCapabilities', args, options)).capabilities;
  }

  async connectListAllDomains(options: FlagsOptions = {}): Promise<Domain[]> {
    return (await this.rpc.call('connectListAllDomains', { need_results: 1, flags: flagsOf(options) }, options)).domains;
  }

  async connectListAllStoragePools(options: FlagsOptions = {}): Promise<StoragePool[]> {
    return (await this.rpc.call('connectListAllStoragePools', { need_results: 1, flags: flagsOf(options) }, options))
      .pools;
  }

  // ---- domain -----------------------------------------------------------------------------------

  async domainLookupByName(name: string, options: CallOptions = {}): Promise<Domain> {
    return (await this.rpc.call('domainLookupByName', { name }, options)).dom;
  }

  async domainDefineXmlFlags(xml: string, options: FlagsOptions = {}): Promise<Domain> {
    return (await this.rpc.call('domainDefineXmlFlags', { xml, flags: flagsOf(options) }, options)).dom;
  }

  async domainCreate(dom: Domain, options: CallOptions = {}): Promise<void> {
    await this.rpc.call('domainCreate', { dom }, options);
  }

  async domainDestroy(dom: Domain, options: CallOptions = {}): Promise<void> {
    await this.rpc.call('domainDestroy', { dom }, options);
  }

  async domainUndefineFlags(dom: Domain, options: FlagsOptions = {}): Promise<void> {
    await this.rpc.call('domainUndefineFlags', { dom, flags: flagsOf(options) }, options);
  }

  async domainGetState(dom: Domain, options: FlagsOptions = {}): Promise<{ state: number; reason: number }> {
    return this.rpc.call('domainGetState', { dom, flags: flagsOf(options) }, options);
  }

  async domainGetInfo(dom: Domain, options: CallOptions = {}): Promise<DomainInfo> {
    const info = await this.rpc.call('domainGetInfo', { dom }, options);
    return {
      state: info.state,
      maxMemKiB: info.maxMem,
      memoryKiB: info.memory,
      nrVirtCpu: info.nrVirtCpu,
      cpuTimeNs: info.cpuTime,
    };
  }

  async domainGetXmlDesc(dom: Domain, options: FlagsOptions = {}): Promise<string> {
    return (await this.rpc.call('domainGetXmlDesc', { dom, flags: flagsOf(options) }, options)).xml;
  }

  async domainGetMetadata(dom: Domain, options: MetadataOptions): Promise<string> {
    const args = { dom, type: options.type, uri: options.uri ?? null, flags: flagsOf(options) };
    return (await this.rpc.call('domainGetMetadata', args, options)).metadata;
  }

  async domainSetMetadata(dom: Domain, options: SetMetadataOptions): Promise<void> {
    const args = {
      dom,
      type: options.type,
      metadata: options.metadata,
      key: options.key ?? null,
      uri: options.uri ?? null,
      flags: flagsOf(options),
    };
    await this.rpc.call('domainSetMetadata', args, options);
  }

  async domainInterfaceAddresses(
    dom: Domain,
    options: FlagsOptions & { source: number },
  ): Promise<DomainInterface[]> {
    const args = { dom, source: options.source, flags: flagsOf(options) };
    return (await this.rpc.call('domainInterfaceAddresses', args, options)).ifaces;
  }

  // ---- storage pool -----------------------------------------------------------------------------

  async storagePoolLookupByName(name: string, options: CallOptions = {}): Promise<StoragePool> {
    return (await this.rpc.call('storagePoolLookupByName', { name }, options)).pool;
  }

  storagePoolGetInfo(pool: StoragePool, options: CallOptions = {}): Promise<StoragePoolInfo> {
    return this.rpc.call('storagePoolGetInfo', { pool }, options);
  }

  async storagePoolRefresh(pool: StoragePool, options: FlagsOptions = {}): Promise<void> {
    await this.rpc.call('storagePoolRefresh', { pool, flags: flagsOf(options) }, options);
  }

  async storagePoolGetXmlDesc(pool: StoragePool, options: FlagsOptions = {}): Promise<string> {
    return (await this.rpc.call('storagePoolGetXmlDesc', { pool, flags: flagsOf(options) }, options)).xml;
  }

  /** virStoragePoolCreate: starts a defined pool. */
  async storagePoolCreate(pool: StoragePool, options: FlagsOptions = {}): Promise<void> {
    await this.rpc.call('storagePoolCreate', { pool, flags: flagsOf(options) }, options);
  }

  /** virStoragePoolDestroy: stops a pool (its volumes stay). */
  async storagePoolDestroy(pool: StoragePool, options: CallOptions = {}): Promise<void> {
    await this.rpc.call('storagePoolDestroy', { pool }, options);
  }

  async storagePoolListAllVolumes(pool: StoragePool, options: FlagsOptions = {}): Promise<StorageVol[]> {
    const args = { pool, need_results: 1, flags: flagsOf(options) };
    return (await this.rpc.call('storagePoolListAllVolumes', args, options)).vols;
  }

  // ---- storage volume ---------------------------------------------------------------------------

  async storageVolLookupByName(target: { pool: StoragePool; name: string }, options: CallOptions = {}): Promise<StorageVol> {
    return (await this.rpc.call('storageVolLookupByName', target, options)).vol;
  }

  async storageVolCreateXml(target: { pool: StoragePool; xml: string }, options: FlagsOptions = {}): Promise<StorageVol> {
    const args = { pool: target.pool, xml: target.xml, flags: flagsOf(options) };
    return (await this.rpc.call('storageVolCreateXml', args, options)).vol;
  }

  async storageVolDelete(vol: StorageVol, options: FlagsOptions = {}): Promise<void> {
    await this.rpc.call('storageVolDelete', { vol, flags: flagsOf(options) }, options);
  }

  async storageVolGetPath(vol: StorageVol, options: CallOptions = {}): Promise<string> {
    return (await this.rpc.call('storageVolGetPath', { vol }, options)).name;
  }

  storageVolGetInfo(vol: StorageVol, options: CallOptions = {}): Promise<StorageVolInfo> {
    return this.rpc.call('storageVolGetInfo', { vol }, options);
  }

  async storageVolGetXmlDesc(vol: StorageVol, options: FlagsOptions = {}): Promise<string> {
    return (await this.rpc.call('storageVolGetXmlDesc', { vol, flags: flagsOf(options) }, options)).xml;
  }

  /** Streams `source` into the volume; see stream.ts for backpressure and source errors. */
  storageVolUpload(
    vol: StorageVol,
    options: UploadOptions & VolTransferOptions & { source: AsyncIterable<Uint8Array> },
  ): Promise<UploadResult> {
    const args = { vol, offset: options.offset ?? 0, length: options.length ?? 0, flags: options.flags ?? 0 };
    return this.rpc.upload('storageVolUpload', args, options);
  }

  /** The volume's bytes as an async iterable; the call is made on the first iteration. */
  storageVolDownload(vol: StorageVol, options: DownloadOptions & VolTransferOptions = {}): AsyncIterable<Buffer> {
    const args = { vol, offset: options.offset ?? 0, length: options.length ?? 0, flags: options.flags ?? 0 };
    return this.rpc.download('storageVolDownload', args, options);
  }
}
