// kvm2's instance-inspection capability (server/providers/instance-inspection.ts): a read-only look
// at one domain for the diagnosis. It runs on a fresh connection of its own, like the health
// check, so a diagnosis step that runs out of its time budget kills only this connection, never
// the pooled one the reconciler shares. Only reads: lookups, state, XML, interface addresses.
import { DomainInterfaceAddressesSource, isLibvirtError, LibvirtError, type Domain } from '@/server/libvirt';
import type { CallOptions } from '@/server/providers/contract';
import { ErrNotFound, ErrPermanent } from '@/server/providers/errors';
import type { AddressAnswer, AddressSource, DomainFacts, InstanceInspection, InstanceInspector, SeedFacts } from '@/server/providers/instance-inspection';
import { isRunningState, lookupDomain } from './domain';
import { classify } from './errors';
import { lookupVolume } from './image';
import { firstUsableIPv4 } from './instance';
import { domainStateWords } from './inventory-read';
import { configuredHost, type Kvm2Host, type Kvm2Settings } from './kvm2';
import type { FreshConnection, HostBackend } from './libvirt-api';
import { parseProviderID } from './provider-id';
import { seedVolumeName } from './volume';
import { parseDomainXML } from './xml-parse';

const sourceCodes: Record<AddressSource, number> = {
  agent: DomainInterfaceAddressesSource.Agent,
  arp: DomainInterfaceAddressesSource.Arp,
};

const classified = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    throw classify(err, { op: 'get' });
  }
};

class Kvm2InstanceInspection implements InstanceInspection {
  private found: Promise<Domain | undefined> | undefined;

  constructor(
    private readonly connection: FreshConnection,
    private readonly target: { host: Kvm2Host; domain: string },
  ) {}

  get host(): string {
    return this.target.host.name;
  }

  get domain(): string {
    return this.target.domain;
  }

  /** The domain, looked up once for every step. */
  private lookup(signal?: AbortSignal): Promise<Domain | undefined> {
    this.found ??= lookupDomain(this.connection.api, this.target.domain, signal);
    return this.found;
  }

  private async existing(signal?: AbortSignal): Promise<Domain> {
    const dom = await this.lookup(signal);
    if (!dom) throw new ErrNotFound(`domain ${JSON.stringify(this.target.domain)} not found on host ${this.host}`);
    return dom;
  }

  domainFacts(options: CallOptions = {}): Promise<DomainFacts> {
    return classified(async () => {
      const dom = await this.lookup(options.signal);
      if (!dom) return { defined: false, running: false };
      const { state } = await this.connection.api.domainGetState({ dom, signal: options.signal });
      return { defined: true, state: domainStateWords[state] ?? `state ${state}`, running: isRunningState(state) };
    });
  }

  seed(options: CallOptions = {}): Promise<SeedFacts> {
    return classified(async () => {
      const { api } = this.connection;
      const { signal } = options;
      const volume = seedVolumeName(this.target.domain);
      const dom = await this.existing(signal);
      const [xml, path] = await Promise.all([api.domainGetXmlDesc({ dom, flags: 0, signal }), this.volumePath(volume, signal)]);
      // Matched by the volume's path when it exists, by its file name when it is gone.
      const carries = (file: string | undefined) => file !== undefined && (path ? file === path : file.endsWith(`/${volume}`));
      const disk = parseDomainXML(xml).disks.find((candidate) => carries(candidate.sourceFile));
      const facts: SeedFacts = { volume, volumeExists: path !== undefined };
      if (disk) facts.attachedAs = `${disk.targetDev ?? '?'} (${disk.device ?? 'disk'})`;
      return facts;
    });
  }

  private async volumePath(volume: string, signal?: AbortSignal): Promise<string | undefined> {
    const { api } = this.connection;
    let pool;
    try {
      pool = await api.storagePoolLookupByName({ name: this.target.host.pool, signal });
    } catch (err) {
      if (isLibvirtError(err, 'ErrNoStoragePool')) return undefined;
      throw err;
    }
    const found = await lookupVolume(api, pool, volume, signal);
    return found ? api.storageVolGetPath({ vol: found, signal }) : undefined;
  }

  addresses(source: AddressSource, options: CallOptions = {}): Promise<AddressAnswer> {
    return classified(async () => {
      const dom = await this.existing(options.signal);
      try {
        const interfaces = await this.connection.api.domainInterfaceAddresses({ dom, source: sourceCodes[source], signal: options.signal });
        const ip = firstUsableIPv4(interfaces);
        return { source, addresses: interfaces.flatMap((iface) => iface.addrs.map((address) => address.addr)), ...(ip ? { ip } : {}) };
      } catch (err) {
        // The daemon's refusal ("agent not connected") is the answer; a dead connection is not.
        if (!(err instanceof LibvirtError)) throw err;
        return { source, addresses: [], error: err.message };
      }
    });
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}

export function kvm2InstanceInspector(options: { settings: Kvm2Settings; backend: HostBackend }): InstanceInspector {
  return {
    open: (providerID, callOptions = {}) =>
      classified(async () => {
        const { host: hostName, domain } = parseProviderID(providerID);
        const host = configuredHost(options.settings, hostName);
        if (!host) throw new ErrPermanent(`providerID ${providerID} names host ${JSON.stringify(hostName)}, which is not in kvm2.hosts`);
        const connection = await options.backend.fresh(host.name, { signal: callOptions.signal });
        return new Kvm2InstanceInspection(connection, { host, domain });
      }),
  };
}
