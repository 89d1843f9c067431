// An optional capability of the provider contract: providers whose instances run on hosts the
// admin owns (kvm2) read one host's telemetry in one round: every domain's cumulative counters
// (CPU time, NIC and disk bytes) and memory, and the host's CPU times and memory. The counters are
// raw; the control plane turns them into rates (server/control/stats-rates.ts).
import type { CallOptions } from './contract';

export interface DomainCounters {
  /** the instance name (kvm2: the domain name) */
  name: string;
  /** as Get takes it; absent for a name the provider never gives its instances */
  providerID?: string;
  /** the hypervisor's runtime id: it changes when the instance is started again (-1 when not running) */
  runId: number;
  /** the provider's word for its state, e.g. running, shut off */
  state: string;
  running: boolean;
  /** cumulative CPU time of every vCPU, nanoseconds */
  cpuTimeNs?: bigint;
  /** memory the instance holds on the host (resident), bytes */
  memoryBytes?: number;
  /** memory the guest was given, bytes */
  memoryTotalBytes?: number;
  /** cumulative bytes over every NIC, from the guest's point of view (rx: into the guest) */
  netRxBytes?: bigint;
  netTxBytes?: bigint;
  /** cumulative bytes over every disk */
  diskReadBytes?: bigint;
  diskWriteBytes?: bigint;
}

export interface HostCounters {
  host: string;
  cpus: number;
  /** cumulative nanoseconds of every CPU: busy (user, kernel, iowait) and in total (busy + idle) */
  cpuBusyNs: bigint;
  cpuTotalNs: bigint;
  memoryTotalBytes: number;
  /** free + buffers + cached: what the kernel can hand a new guest */
  memoryFreeBytes: number;
  domains: DomainCounters[];
}

export interface HostStatsReader {
  /** the configured hosts, in config order */
  hosts(): string[];
  /**
   * One round for `host`: a constant number of calls whatever the number of instances. It must
   * settle on its own (kvm2: every RPC's budget): past its deadline the sampler stops waiting
   * without aborting it (in kvm2 that would kill the pooled connection) and reads the host again
   * only once it has settled.
   */
  sample(host: string, options?: CallOptions): Promise<HostCounters>;
}
