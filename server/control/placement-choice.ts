// Which host a Proxy without placement.zone goes to, decided from facts gathered beforehand (no
// I/O here): the host must be Reachable by its latest health check, its pool must be running with
// room for the overlay and seed, its free memory must hold the machine type; among those, spread
// takes the one with the fewest managed instances, pack the one with the most (config order breaks
// ties). Every refused host keeps its reason, so a Proxy that waits says why.
import type { HostCapacity, PlacementNeeds, PlacementPolicy } from '@/server/providers/host-capacity';

/** What is known about one configured host when the choice is made. */
export interface HostFacts {
  host: string;
  /** the latest health result; undefined before the first check */
  health?: { ready: boolean; reason: string; message: string };
  /** measured now; absent when the host was not measured (unhealthy) or could not be */
  capacity?: HostCapacity;
  /** why measuring failed */
  measureError?: string;
}

export interface HostRefusal {
  host: string;
  reason: string;
}

export type PlacementChoice = { kind: 'chosen'; host: string; reason: string; refusals: HostRefusal[] } | { kind: 'none'; refusals: HostRefusal[] };

const gib = 1024 ** 3;

export function formatGiB(bytes: number): string {
  const value = bytes / gib;
  return `${value >= 10 ? Math.floor(value) : Math.floor(value * 10) / 10} GiB`;
}

function refusalOf(facts: HostFacts, needs: PlacementNeeds): string | undefined {
  const { health, capacity } = facts;
  if (!health) return 'no health check has finished yet';
  if (!health.ready) return `not healthy: ${health.reason}${health.message ? ` (${health.message})` : ''}`;
  if (!capacity) return `could not be measured: ${facts.measureError ?? 'no answer'}`;
  if (!capacity.poolRunning) return `storage pool ${JSON.stringify(capacity.pool)} is not running`;
  if (capacity.poolAvailableBytes < needs.diskBytes) {
    return `storage pool ${JSON.stringify(capacity.pool)} has ${formatGiB(capacity.poolAvailableBytes)} free, ${formatGiB(needs.diskBytes)} needed`;
  }
  if (capacity.freeMemoryBytes < needs.memoryBytes) {
    return `${formatGiB(capacity.freeMemoryBytes)} memory free, ${formatGiB(needs.memoryBytes)} needed`;
  }
  return undefined;
}

/** e.g. `lab2: 180 GiB free, 3.1 GiB memory free, 2 VMs` */
export function describeHost(capacity: HostCapacity): string {
  const vms = `${capacity.managedInstances} VM${capacity.managedInstances === 1 ? '' : 's'}`;
  return `${capacity.host}: ${formatGiB(capacity.poolAvailableBytes)} free, ${formatGiB(capacity.freeMemoryBytes)} memory free, ${vms}`;
}

export function chooseHost(options: { hosts: HostFacts[]; needs: PlacementNeeds; policy: PlacementPolicy }): PlacementChoice {
  const { needs, policy } = options;
  const refusals: HostRefusal[] = [];
  const fitting: HostCapacity[] = [];
  for (const facts of options.hosts) {
    const reason = refusalOf(facts, needs);
    if (reason !== undefined) refusals.push({ host: facts.host, reason });
    else if (facts.capacity) fitting.push(facts.capacity);
  }
  const direction = policy === 'spread' ? 1 : -1;
  // A stable sort keeps config order among equals.
  const [best] = [...fitting].sort((a, b) => direction * (a.managedInstances - b.managedInstances));
  if (!best) return { kind: 'none', refusals };
  return { kind: 'chosen', host: best.host, reason: `${describeHost(best)} (${policy})`, refusals };
}

/** One line naming every refused host, for the condition of a Proxy that waits. */
export function describeRefusals(refusals: HostRefusal[]): string {
  if (refusals.length === 0) return 'the provider has no hosts';
  return `no host fits: ${refusals.map((refusal) => `${refusal.host}: ${refusal.reason}`).join('; ')}`;
}
