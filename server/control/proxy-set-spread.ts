// Where a set's new members go: the eligible host with the fewest members, counted so that a
// rollout's leaving members do not skew the spread (proxy-set-decide.ts).
import type { SetHost, SetMember } from './proxy-set-decide';

/**
 * Members per host, to place new ones. A rollout's old-template members are leaving, so hosts are
 * compared by the members of the current template first (what the set ends with) and by all members
 * only between equals: counting the leaving ones alone, a tie (placement order favouring the host
 * of the newest old member) put both new members of a 2-member rollout on one host: 2/0 at the end.
 */
export class Spread {
  private readonly counts = new Map<string, { current: number; all: number }>();

  constructor(
    private readonly hosts: SetHost[],
    members: SetMember[],
  ) {
    for (const member of members) if (member.host !== undefined) this.add(member.host, { delta: 1, current: member.current });
  }

  add(host: string, change: { delta: number; current: boolean }): void {
    const count = this.count(host);
    this.counts.set(host, { current: count.current + (change.current ? change.delta : 0), all: count.all + change.delta });
  }

  private count(host: string): { current: number; all: number } {
    return this.counts.get(host) ?? { current: 0, all: 0 };
  }

  /** The eligible host with the fewest current-template members, then the fewest members; ties go to the earlier host in placement order. */
  pick(): string | undefined {
    let best: SetHost | undefined;
    for (const host of this.hosts) {
      if (!host.eligible || host.downSinceMs !== undefined) continue;
      if (!best) {
        best = host;
        continue;
      }
      const [candidate, leader] = [this.count(host.name), this.count(best.name)];
      if (candidate.current < leader.current || (candidate.current === leader.current && candidate.all < leader.all)) best = host;
    }
    return best?.name;
  }
}
