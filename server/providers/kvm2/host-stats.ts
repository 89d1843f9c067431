// kvm2's host-stats capability (server/providers/host-stats.ts): one round per host on its pooled
// connection is one CONNECT_GET_ALL_DOMAIN_STATS for every domain (state, cpu-total, balloon,
// interface, block) plus NODE_GET_INFO and the node's CPU and memory stats (two calls each: the
// count, then the values), six RPCs whatever the number of domains.
import { DomainState, DomainStatsTypes, GetAllDomainStatsFlags, type DomainStats } from '@/server/libvirt';
import { ErrPermanent } from '@/server/providers/errors';
import type { DomainCounters, HostCounters, HostStatsReader } from '@/server/providers/host-stats';
import type { Kvm2Context } from './context';
import { classify } from './errors';
import { domainStateWords } from './inventory-read';
import { configuredHost } from './kvm2';
import { formatProviderID } from './provider-id';

export const sampledGroups =
  DomainStatsTypes.State | DomainStatsTypes.CpuTotal | DomainStatsTypes.Balloon | DomainStatsTypes.Interface | DomainStatsTypes.Block;

const kib = 1024;
const active = new Set<number>([DomainState.Running, DomainState.Blocked, DomainState.Paused]);

const sum = <T>(items: T[] | undefined, read: (item: T) => bigint): bigint | undefined =>
  items === undefined ? undefined : items.reduce((total, item) => total + read(item), 0n);

const kibToBytes = (value: bigint | undefined): number | undefined => (value === undefined ? undefined : Number(value) * kib);

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

function providerIDOf(host: string, domain: string): string | undefined {
  try {
    return formatProviderID({ host, domain });
  } catch {
    return undefined; // not a name kvm2 gives its domains
  }
}

/** One domain's record read into counters; groups libvirt left out (a shut-off domain's) stay absent. */
export function domainCountersOf(host: string, stats: DomainStats): DomainCounters {
  const state = stats.state?.state ?? DomainState.NoState;
  return withoutUndefined({
    name: stats.dom.name,
    providerID: providerIDOf(host, stats.dom.name),
    runId: stats.dom.id,
    state: domainStateWords[state] ?? `state ${state}`,
    running: active.has(state),
    cpuTimeNs: stats.cpu?.timeNs,
    memoryBytes: kibToBytes(stats.balloon?.rssKiB ?? stats.balloon?.currentKiB),
    memoryTotalBytes: kibToBytes(stats.balloon?.currentKiB ?? stats.balloon?.maximumKiB),
    netRxBytes: sum(stats.interfaces, (nic) => nic.rxBytes),
    netTxBytes: sum(stats.interfaces, (nic) => nic.txBytes),
    diskReadBytes: sum(stats.blocks, (disk) => disk.readBytes),
    diskWriteBytes: sum(stats.blocks, (disk) => disk.writeBytes),
  });
}

async function sampleHost(context: Kvm2Context, name: string, signal?: AbortSignal): Promise<HostCounters> {
  const host = configuredHost(context.settings, name);
  if (!host) throw new ErrPermanent(`host ${JSON.stringify(name)} is not in kvm2.hosts`);
  try {
    const api = await context.backend.pooled(host.name, { signal });
    const [domains, info, cpu, memory] = await Promise.all([
      // NoWait: what libvirtd can read at once; a domain busy in a job (starting, being destroyed)
      // is reported without the stats that would wait for it, instead of holding up the round.
      api.connectGetAllDomainStats({ stats: sampledGroups, flags: GetAllDomainStatsFlags.NoWait, signal }),
      api.nodeGetInfo({ signal }),
      api.nodeGetCpuStats({ signal }),
      api.nodeGetMemoryStats({ signal }),
    ]);
    const busy = (cpu.user ?? 0n) + (cpu.kernel ?? 0n) + (cpu.iowait ?? 0n);
    return {
      host: host.name,
      cpus: info.cpus,
      cpuBusyNs: busy,
      cpuTotalNs: busy + (cpu.idle ?? 0n),
      memoryTotalBytes: Number(memory.total ?? info.memoryKiB) * kib,
      memoryFreeBytes: Number((memory.free ?? 0n) + (memory.buffers ?? 0n) + (memory.cached ?? 0n)) * kib,
      domains: domains.map((record) => domainCountersOf(host.name, record)),
    };
  } catch (err) {
    throw classify(err, { op: 'get' });
  }
}

export function kvm2HostStats(context: Kvm2Context): HostStatsReader {
  return {
    hosts: () => context.settings.hosts.map((host) => host.name),
    sample: (host, options = {}) => sampleHost(context, host, options.signal),
  };
}
