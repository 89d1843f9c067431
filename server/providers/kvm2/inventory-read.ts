// What listing a host and evicting one of its cached images both need: the target and its
// configured host, the error classing, and the reads of a host's domains (state and disk facts)
// and of a pool's volumes, with the base paths each domain's disks depend on; and virsh's words for
// a domain's state, which the stats and the watchers show too.
import { DomainState, isLibvirtError, LibvirtError, type Domain, type StoragePool, type StorageVol } from '@/server/libvirt';
import { ProviderError } from '@/server/providers/errors';
import type { DomainListing } from '@/server/providers/host-inventory';
import { classify } from './errors';
import { HostNotFoundError, ImageBusyError, ImageInUseError, ImageNotFoundError } from './inventory-errors';
import { dependencyClosure, domainFacts, type DomainFacts } from './inventory-parse';
import { configuredHost, type Kvm2Host, type Kvm2Settings } from './kvm2';
import type { HostBackend, LibvirtAPI } from './libvirt-api';
import { parseVolumeXML, type VolumeDescription } from './xml-parse';
import { mapLimited } from './map-limited';

/** virsh's word for each domain state (`virsh domstate`). */
export const domainStateWords: Record<number, string> = {
  [DomainState.NoState]: 'no state',
  [DomainState.Running]: 'running',
  [DomainState.Blocked]: 'idle',
  [DomainState.Paused]: 'paused',
  [DomainState.Shutdown]: 'in shutdown',
  [DomainState.Shutoff]: 'shut off',
  [DomainState.Crashed]: 'crashed',
  [DomainState.PmSuspended]: 'pmsuspended',
};

export interface InventoryTarget {
  settings: Kvm2Settings;
  backend: HostBackend;
  host: string;
  signal?: AbortSignal;
}

/** Domains and volumes read at once on a host: the RPCs share one multiplexed connection. */
export const hostReadConcurrency = 8;

export interface DomainRead {
  listing: DomainListing;
  facts: DomainFacts | undefined;
}

/** Every domain with its state and disk facts; one that vanished meanwhile is left out. */
export async function readDomains(api: LibvirtAPI, signal?: AbortSignal): Promise<DomainRead[]> {
  const domains = await api.connectListAllDomains({ flags: 0, signal });
  const read = await mapLimited(domains, { limit: hostReadConcurrency }, async (dom: Domain): Promise<DomainRead | undefined> => {
    try {
      const [{ state }, xml] = await Promise.all([api.domainGetState({ dom, signal }), api.domainGetXmlDesc({ dom, flags: 0, signal })]);
      const facts = domainFacts(xml);
      const listing: DomainListing = { name: dom.name, state: domainStateWords[state] ?? `state ${state}`, gen1: facts.gen1 };
      if (facts.mark) listing.mark = facts.mark;
      if (facts.markProblem) listing.markProblem = facts.markProblem;
      return { listing, facts };
    } catch (err) {
      if (isLibvirtError(err, 'ErrNoDomain')) return undefined;
      if (!(err instanceof LibvirtError)) throw err;
      return { listing: { name: dom.name, state: 'unknown', gen1: false, markProblem: err.message }, facts: undefined };
    }
  });
  return read.filter((entry): entry is DomainRead => entry !== undefined).sort((a, b) => a.listing.name.localeCompare(b.listing.name));
}

export interface PoolVolume {
  ref: StorageVol;
  description: VolumeDescription;
}

export async function readVolumes(api: LibvirtAPI, pool: StoragePool, signal?: AbortSignal): Promise<PoolVolume[]> {
  const refs = await api.storagePoolListAllVolumes({ pool, flags: 0, signal });
  const read = await mapLimited(refs, { limit: hostReadConcurrency }, async (ref) => {
    try {
      return { ref, description: parseVolumeXML(await api.storageVolGetXmlDesc({ vol: ref, signal })) };
    } catch (err) {
      if (isLibvirtError(err, 'ErrNoStorageVol')) return undefined;
      throw err;
    }
  });
  return read.filter((entry): entry is PoolVolume => entry !== undefined);
}

/** For each base path, the names of the domains whose disks depend on it. */
export function usersByPath(options: { domains: DomainRead[]; volumes: PoolVolume[]; pool: string }): Map<string, string[]> {
  const backingOf = new Map<string, string>();
  const pathByName = new Map<string, string>();
  for (const { description } of options.volumes) {
    if (description.path && description.backingPath) backingOf.set(description.path, description.backingPath);
    if (description.path) pathByName.set(description.name, description.path);
  }
  const pathOfVolume = (ref: { pool: string; volume: string }) => (ref.pool === options.pool ? pathByName.get(ref.volume) : undefined);
  const users = new Map<string, string[]>();
  for (const { listing, facts } of options.domains) {
    if (!facts) continue;
    for (const path of dependencyClosure({ facts, backingOf, pathOfVolume })) users.set(path, [...(users.get(path) ?? []), listing.name]);
  }
  return users;
}

export function hostOf(target: InventoryTarget): Kvm2Host {
  const host = configuredHost(target.settings, target.host);
  if (!host) throw new HostNotFoundError(target.host, target.settings.name);
  return host;
}

/** Our own typed errors pass; everything from libvirt or the connection gets the contract's class. */
export async function classified<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (
      err instanceof HostNotFoundError ||
      err instanceof ImageNotFoundError ||
      err instanceof ImageInUseError ||
      err instanceof ImageBusyError ||
      err instanceof ProviderError
    )
      throw err;
    throw classify(err, { op: 'get' });
  }
}
