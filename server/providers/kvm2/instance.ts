// Get, Delete and ListByTag.
//
// Get reads the state, kvm2's mark and, for an active domain, the first usable IPv4 address from
// the guest agent, then the host's ARP table; a source that errors means "no IP yet" (the agent
// is not up until the guest installed it), unless every source errors. Delete removes the domain
// (destroy, then undefine with managed save, snapshot metadata and NVRAM) and then the overlay
// and seed by name even when there was no domain, since a Create cut off before its define leaves
// them behind. ListByTag sweeps every configured host: marked domains only, each read once, a
// domain that cannot be read skipped with a log line (GC never deletes what it does not see),
// an unreachable host failing the whole sweep. A sweep costs one RPC per domain plus two per host:
// the listing, every domain's state in one CONNECT_GET_ALL_DOMAIN_STATS, and the marks pipelined
// alongside it. It discovers no addresses (two RPCs per running domain; its callers, GC and the
// crash recovery of Create, use the uid): an active domain is listed as Provisioning, Get knows more.
import { AbortFanOut } from '@/lib/abort-fan-out';
import {
  DomainInterfaceAddressesSource,
  DomainStatsTypes,
  DomainUndefineFlags,
  IpAddrType,
  isLibvirtError,
  LibvirtError,
  type Domain,
  type DomainInterface,
  type StoragePool,
} from '@/server/libvirt';
import type { CallOptions, Instance } from '@/server/providers/contract';
import { managedTag } from '@/server/providers/contract';
import { ErrNotFound, ErrPermanent, ErrTransient, ProviderError } from '@/server/providers/errors';
import type { Logger } from '@/server/telemetry/logger';
import { instanceLogger, type Kvm2Context } from './context';
import { instanceStateOf, lookupDomain, pausedDetail, readMark, stateClassOf } from './domain';
import { lookupVolume } from './image';
import { configuredHost, type Kvm2Host } from './kvm2';
import type { LibvirtAPI } from './libvirt-api';
import type { InstanceMetadata } from './metadata';
import { formatProviderID, parseProviderID } from './provider-id';
import { overlayVolumeName, seedVolumeName } from './volume';
import { errorMessage } from '@/lib/error-message';
import { mapLimited } from './map-limited';

/** The agent knows the guest's own view; ARP only sees traffic the guest sent the host. */
const addressSources = [
  { source: DomainInterfaceAddressesSource.Agent, name: 'agent' },
  { source: DomainInterfaceAddressesSource.Arp, name: 'arp' },
] as const;

/** Metadata reads in flight at once per host in a sweep: pipelined on one multiplexed connection. */
const sweepPipelineDepth = 32;

function isUsableIPv4(addr: string): boolean {
  const octets = addr.split('.').map(Number);
  if (octets.length !== 4 || octets.some((octet) => !Number.isInteger(octet) || octet < 0 || octet > 255)) return false;
  const [first, second] = octets as [number, number, number, number];
  const unspecified = octets.every((octet) => octet === 0);
  const loopback = first === 127;
  const linkLocal = first === 169 && second === 254;
  return !unspecified && !loopback && !linkLocal;
}

/** The first IPv4 address that is not loopback, link-local or unspecified. */
export function firstUsableIPv4(interfaces: DomainInterface[]): string | undefined {
  for (const iface of interfaces) {
    for (const address of iface.addrs) if (address.type === IpAddrType.IPv4 && isUsableIPv4(address.addr)) return address.addr;
  }
  return undefined;
}

interface Inspection {
  state: number;
  ip: string | undefined;
  /** every address source errored on an active domain */
  addressesFailed: boolean;
}

async function discoverAddress(api: LibvirtAPI, dom: Domain, options: { logger: Logger; signal?: AbortSignal }) {
  let failures = 0;
  for (const { source, name } of addressSources) {
    try {
      const ip = firstUsableIPv4(await api.domainInterfaceAddresses({ dom, source, signal: options.signal }));
      if (ip) return { ip, addressesFailed: false };
    } catch (err) {
      // A daemon answer ("agent not connected") means no IP yet; a dead connection does not.
      if (!(err instanceof LibvirtError)) throw err;
      failures += 1;
      // V(2): a booting guest answers like this on every poll.
      options.logger.trace({ source: name, error: err.message, libvirtError: err.codeName }, 'no addresses from source');
    }
  }
  return { ip: undefined, addressesFailed: failures === addressSources.length };
}

async function inspect(api: LibvirtAPI, dom: Domain, options: { logger: Logger; signal?: AbortSignal }): Promise<Inspection> {
  const { state } = await api.domainGetState({ dom, signal: options.signal });
  if (stateClassOf[state] !== 'active') return { state, ip: undefined, addressesFailed: false };
  return { state, ...(await discoverAddress(api, dom, options)) };
}

function instanceOf(options: { host: string; dom: Domain; inspection: Inspection; mark: InstanceMetadata | undefined }): Instance {
  const { host, dom, inspection, mark } = options;
  const instance: Instance = {
    providerID: formatProviderID({ host, domain: dom.name }),
    host,
    name: dom.name,
    state: instanceStateOf(inspection.state, inspection.ip),
  };
  if (inspection.ip) instance.ip = inspection.ip;
  const detail = pausedDetail({ host, domain: dom.name, state: inspection.state });
  if (detail) instance.detail = detail;
  if (mark) {
    instance.uid = mark.uid;
    if (mark.created) instance.created = mark.created;
  }
  return instance;
}

/** The host a providerID names, which must still be configured. */
function addressOf(context: Kvm2Context, providerID: string): { host: Kvm2Host | undefined; hostName: string; domain: string } {
  const address = parseProviderID(providerID);
  return { host: configuredHost(context.settings, address.host), hostName: address.host, domain: address.domain };
}

export async function getInstance(context: Kvm2Context, providerID: string, options: CallOptions = {}): Promise<Instance> {
  const { host, hostName, domain } = addressOf(context, providerID);
  // A typo in hosts must not look like a missing VM and trigger a rebuild elsewhere.
  if (!host) throw new ErrPermanent(`providerID ${providerID} names host ${JSON.stringify(hostName)}, which is not in kvm2.hosts`);
  const { signal } = options;
  const logger = instanceLogger(context, host, domain);
  const api = await context.backend.pooled(host.name, { signal });
  const dom = await lookupDomain(api, domain, signal);
  if (!dom) throw new ErrNotFound(`domain ${JSON.stringify(domain)} not found on host ${host.name}`);
  const inspection = await inspect(api, dom, { logger, signal });
  if (inspection.addressesFailed) {
    throw new ErrTransient(`domain ${JSON.stringify(domain)} on host ${host.name} is running but every address source failed`);
  }
  const mark = await readMark(api, dom, signal);
  return instanceOf({ host: host.name, dom, inspection, mark });
}

/** Runs `step`, treating the libvirt codes in `fine` as success. */
async function tolerating(fine: Parameters<typeof isLibvirtError>[1][], step: () => Promise<void>): Promise<boolean> {
  try {
    await step();
    return true;
  } catch (err) {
    if (fine.some((code) => isLibvirtError(err, code))) return false;
    throw err;
  }
}

async function removeVolumes(api: LibvirtAPI, pool: StoragePool, domain: string, signal?: AbortSignal): Promise<void> {
  for (const name of [overlayVolumeName(domain), seedVolumeName(domain)]) {
    const volume = await lookupVolume(api, pool, name, signal);
    if (volume) await tolerating(['ErrNoStorageVol'], () => api.storageVolDelete({ vol: volume, signal }));
  }
}

export interface DeleteOutcome {
  /** false when the providerID names a host no longer configured (nothing was done) */
  hostConfigured: boolean;
  /** whether a domain was there to remove */
  domainExisted: boolean;
}

export async function deleteInstance(context: Kvm2Context, providerID: string, options: CallOptions = {}): Promise<DeleteOutcome> {
  const { host, hostName, domain } = addressOf(context, providerID);
  if (!host) {
    // The Proxy must be able to finish deleting; the VM stays on a host we can no longer reach.
    context.logger.info({ host: hostName, name: domain, id: providerID }, 'kvm2 delete names a host that is not configured; nothing to do');
    return { hostConfigured: false, domainExisted: false };
  }
  const { signal } = options;
  return context.domainLocks.run(
    domain,
    async () => {
      const api = await context.backend.pooled(host.name, { signal });
      const dom = await lookupDomain(api, domain, signal);
      if (dom) {
        await tolerating(['ErrOperationInvalid', 'ErrNoDomain'], () => api.domainDestroy({ dom, signal }));
        const flags = DomainUndefineFlags.ManagedSave | DomainUndefineFlags.SnapshotsMetadata | DomainUndefineFlags.Nvram;
        await tolerating(['ErrNoDomain'], () => api.domainUndefineFlags({ dom, flags, signal }));
      }
      let pool: StoragePool;
      try {
        pool = await api.storagePoolLookupByName({ name: host.pool, signal });
      } catch (err) {
        // A pool renamed in the config must not pin the Proxy's finalizer.
        if (isLibvirtError(err, 'ErrNoStoragePool')) return { hostConfigured: true, domainExisted: dom !== undefined };
        throw err;
      }
      await removeVolumes(api, pool, domain, signal);
      return { hostConfigured: true, domainExisted: dom !== undefined };
    },
    signal,
  );
}

/** Maps `items` with at most `limit` in flight. */

/** A domain's failure that leaves the rest of the sweep standing: libvirt's answer, or a bad mark. */
const skippable = (err: unknown) => err instanceof LibvirtError || (err instanceof ProviderError && err.errorClass === 'permanent');

/**
 * Every domain's state from one bulk stats call; a domain missing from it vanished after the
 * listing. Its failure fails the sweep (it is not one domain's to skip).
 */
async function domainStates(api: LibvirtAPI, signal?: AbortSignal): Promise<Map<string, number>> {
  let stats;
  try {
    stats = await api.connectGetAllDomainStats({ stats: DomainStatsTypes.State, signal });
  } catch (err) {
    if (err instanceof LibvirtError) throw new ErrTransient(`reading the domain states failed: ${err.message}`, { cause: err });
    throw err;
  }
  return new Map(stats.flatMap((record) => (record.state ? [[record.dom.name, record.state.state] as const] : [])));
}

export async function listHostInstances(context: Kvm2Context, host: Kvm2Host, signal?: AbortSignal): Promise<Instance[]> {
  const api = await context.backend.pooled(host.name, { signal });
  const domains = await api.connectListAllDomains({ flags: 0, signal });
  if (domains.length === 0) return [];
  const states = domainStates(api, signal);
  // Settled by the per-domain reads below; a rejection here must not go unhandled before they await it.
  states.catch(() => undefined);
  const listed = await mapLimited(domains, { limit: sweepPipelineDepth }, async (dom): Promise<Instance | undefined> => {
    const logger = instanceLogger(context, host, dom.name);
    try {
      const mark = await readMark(api, dom, signal);
      if (!mark?.managed) {
        logger.debug({ reason: mark ? 'marked unmanaged' : 'no kvm2 mark' }, 'kvm2 list skipped domain');
        return undefined;
      }
      const state = (await states).get(dom.name);
      if (state === undefined) throw new ErrPermanent(`domain ${JSON.stringify(dom.name)} has no state in the stats reply (gone since the listing)`);
      const instance = instanceOf({ host: host.name, dom, inspection: { state, ip: undefined, addressesFailed: false }, mark });
      logger.trace({ state: instance.state, uid: instance.uid }, 'kvm2 listed instance');
      return instance;
    } catch (err) {
      if (!skippable(err)) throw err;
      logger.debug({ error: errorMessage(err) }, 'kvm2 list skipped a domain it could not read');
      return undefined;
    }
  });
  return listed.filter((instance): instance is Instance => instance !== undefined);
}

/** Every marked domain on every configured host; only kvm2's `managed` tag has members. */
export async function listInstances(context: Kvm2Context, tag: string, options: CallOptions = {}): Promise<Instance[]> {
  if (tag !== managedTag) return [];
  // A child signal per host: the caller's (GC's round) carries one listener however many hosts.
  const fan = new AbortFanOut(options.signal);
  try {
    const perHost = await Promise.all(
      context.settings.hosts.map(async (host) => {
        const child = fan.child();
        try {
          return await listHostInstances(context, host, child.signal);
        } finally {
          child.done();
        }
      }),
    );
    return perHost.flat();
  } finally {
    fan.close();
  }
}
