// What the proxy-set controller does next, decided from facts gathered beforehand (no I/O here, no
// clock): the set's policy, its members, the hosts in automatic placement's order with their
// reachability, the replacement history and now. The controller applies the actions in order
// (proxy-set-controller.ts); the table of situations → decisions is test/unit/proxy-set-decisions.
//
// The order of concerns in one pass: members displaced while their host was down are deleted once
// it is back; members on a host down longer than the grace stop counting (replacements elsewhere);
// Failed members and members not Ready within readyTimeout are replaced within the budget and the
// back-off; then the count is kept at `replicas` (and `replicas + maxSurge` while rolling), new
// members spread to the eligible host with the fewest members; old-template members are deleted
// make-before-break; extras go not-Ready first, then newest.
import type { BackoffPolicy } from './backoff';
import { replaceMembers } from './proxy-set-replacement';
import { Spread } from './proxy-set-spread';

export interface SetPolicy {
  replicas: number;
  readyTimeoutMs: number;
  budget: { max: number; windowMs: number };
  hostDownGraceMs: number;
  maxSurge: number;
  maxUnavailable: number;
  /** a paused set does not roll old-template members; it still keeps the count */
  paused: boolean;
}

export interface SetMember {
  name: string;
  /** the host it was placed on (its placement.zone) */
  host?: string;
  ready: boolean;
  /** phase Failed (latched by the reconciler) */
  failed: boolean;
  /** its deletion was requested: no longer a member that counts */
  deleting: boolean;
  /** its spec is the set's current template (spec hash without the zone) */
  current: boolean;
  /** its labels are the template's plus `proxyset=<set>` */
  labelsCurrent: boolean;
  createdAtMs: number;
  /** since when it has not been Ready (its creation, when it never was); undefined while Ready */
  notReadySinceMs?: number;
  /** the first failing step of its diagnosis, when the controller diagnosed it */
  diagnosis?: string;
  /** replaced elsewhere while its host was down: deleted once the host is back */
  displaced: boolean;
}

export interface SetHost {
  name: string;
  /** healthy and room for one more member now */
  eligible: boolean;
  /** since when its health check says Unreachable; undefined while it answers */
  downSinceMs?: number;
}

export type ReplacementCause = 'Failed' | 'NotReady';

export interface ReplacementRecord {
  member: string;
  atMs: number;
  cause: ReplacementCause;
  /** the diagnosis's first failing step; null when none failed or it was not diagnosed */
  firstFailure: string | null;
}

export interface DecideInput {
  policy: SetPolicy;
  members: SetMember[];
  /** in automatic placement's order (the tie-break of spread) */
  hosts: SetHost[];
  /** oldest first */
  history: ReplacementRecord[];
  /** the budget ran out before and the admin has not acted since */
  exhausted: boolean;
  /** when the admin last released a ReplacementsExhausted stop: replacements before it no longer count */
  budgetSinceMs?: number;
  nowMs: number;
  backoff?: BackoffPolicy;
}

export type CreateReason = 'ScaleUp' | 'Replacement' | 'Rollout' | 'HostDown';
export type DeleteReason = 'ScaleDown' | 'Rollout' | 'HostBack';

export type SetAction =
  | { kind: 'create'; host: string; reason: CreateReason; displaces?: string }
  | { kind: 'replace'; member: string; host: string; cause: ReplacementCause; firstFailure: string | null }
  | { kind: 'delete'; member: string; reason: DeleteReason }
  | { kind: 'relabel'; member: string }
  | { kind: 'exhausted'; message: string }
  | { kind: 'event'; type: 'Normal' | 'Warning'; reason: string; message: string };

export interface SetConditionUpdate {
  type: 'ReplacementsExhausted' | 'Available';
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface SetDecision {
  actions: SetAction[];
  conditions: SetConditionUpdate[];
  rollout: { state: 'Complete' | 'Progressing' | 'Paused'; updated: number; replicas: number };
  /** when a timer (readyTimeout, grace, back-off) runs out; undefined when nothing waits on time */
  requeueAfterMs?: number;
}

/** Not-Ready first, then newest: the order members leave in. */
const leavingOrder = (a: SetMember, b: SetMember) => Number(a.ready) - Number(b.ready) || b.createdAtMs - a.createdAtMs || b.name.localeCompare(a.name);

export function decide(input: DecideInput): SetDecision {
  const { policy, nowMs } = input;
  const actions: SetAction[] = [];
  const waits: number[] = [];
  const hostByName = new Map(input.hosts.map((host) => [host.name, host]));
  const downSince = (member: SetMember) => (member.host === undefined ? undefined : hostByName.get(member.host)?.downSinceMs);
  const strandedHost = (member: SetMember) => {
    const since = downSince(member);
    if (since === undefined) return false;
    if (nowMs - since >= policy.hostDownGraceMs) return true;
    waits.push(since + policy.hostDownGraceMs - nowMs);
    return false;
  };

  let counted: SetMember[] = [];
  const stranded: SetMember[] = [];
  for (const member of input.members) {
    if (member.deleting) continue;
    if (member.displaced) {
      if (downSince(member) === undefined) actions.push({ kind: 'delete', member: member.name, reason: 'HostBack' });
      continue;
    }
    if (strandedHost(member)) stranded.push(member);
    else counted.push(member);
  }
  const spread = new Spread(input.hosts, counted);
  const noHost = () =>
    actions.push({
      kind: 'event',
      type: 'Warning',
      reason: 'NoEligibleHost',
      message: 'no eligible host for a new member: every host is down, unhealthy or full',
    });

  const replaced = replaceMembers(input, { counted, spread, actions, waits, noHost });
  counted = replaced.counted;
  const { fresh, ranOut, exhaustedMessage } = replaced;
  const exhausted = input.exhausted || ranOut;
  if (ranOut && !input.exhausted) {
    actions.push({ kind: 'exhausted', message: exhaustedMessage });
    actions.push({ kind: 'event', type: 'Warning', reason: 'ReplacementsExhausted', message: exhaustedMessage });
  }

  // The count: replicas, plus maxSurge while old-template members roll.
  const old = counted.filter((member) => !member.current);
  const rolling = old.length > 0 && !policy.paused;
  const maxTotal = policy.replicas + (rolling ? policy.maxSurge : 0);
  let currentCount = counted.length - old.length;
  let total = counted.length;
  // Old-template members leave once a new one is Ready for each (or maxUnavailable allows it),
  // never taking the Ready count under replicas - maxUnavailable.
  let ready = counted.filter((member) => member.ready).length;
  const minReady = policy.replicas - policy.maxUnavailable;
  const leaving = new Set<string>();
  if (rolling) {
    const currentReady = counted.filter((member) => member.current && member.ready).length;
    let paired = Math.max(0, currentReady - (policy.replicas - old.length));
    for (const member of [...old].sort(leavingOrder)) {
      const readyAfter = ready - Number(member.ready);
      if (readyAfter < minReady) continue;
      const byUnavailability = policy.maxUnavailable > 0 && total - 1 >= minReady;
      if (paired <= 0 && !byUnavailability) continue;
      if (paired > 0) paired -= 1;
      actions.push({ kind: 'delete', member: member.name, reason: 'Rollout' });
      leaving.add(member.name);
      if (member.host !== undefined) spread.add(member.host, { delta: -1, current: false });
      ready = readyAfter;
      total -= 1;
    }
  }
  const toDisplace = [...stranded];
  while (total < maxTotal && (!rolling || currentCount < policy.replicas)) {
    const host = spread.pick();
    if (host === undefined) {
      noHost();
      break;
    }
    spread.add(host, { delta: 1, current: true });
    const displaced = toDisplace.shift();
    const reason: CreateReason = displaced ? 'HostDown' : rolling ? 'Rollout' : 'ScaleUp';
    actions.push({ kind: 'create', host, reason, ...(displaced ? { displaces: displaced.name } : {}) });
    total += 1;
    currentCount += 1;
  }

  // Extras: not-Ready first, then newest.
  const staying = counted.filter((member) => !leaving.has(member.name) && !fresh.has(member));
  for (const member of staying.sort(leavingOrder)) {
    if (total <= maxTotal) break;
    actions.push({ kind: 'delete', member: member.name, reason: 'ScaleDown' });
    leaving.add(member.name);
    total -= 1;
  }
  for (const member of counted) {
    if (!member.labelsCurrent && member.current && !leaving.has(member.name) && !fresh.has(member)) actions.push({ kind: 'relabel', member: member.name });
  }
  for (const member of counted) {
    if (!member.ready && !member.failed && member.notReadySinceMs !== undefined && !leaving.has(member.name) && !fresh.has(member)) {
      const left = member.notReadySinceMs + policy.readyTimeoutMs - nowMs;
      if (left > 0) waits.push(left);
    }
  }

  const readyNow = counted.filter((member) => member.ready).length;
  const conditions: SetConditionUpdate[] = [
    exhausted
      ? { type: 'ReplacementsExhausted', status: 'True', reason: 'BudgetSpent', message: exhaustedMessage }
      : {
          type: 'ReplacementsExhausted',
          status: 'False',
          reason: 'WithinBudget',
          message: `${replaced.recentCount} of ${policy.budget.max} replacements used in the window`,
        },
    readyNow >= minReady
      ? { type: 'Available', status: 'True', reason: 'EnoughReady', message: `${readyNow} of ${policy.replicas} Ready` }
      : { type: 'Available', status: 'False', reason: 'TooFewReady', message: `${readyNow} of ${policy.replicas} Ready, at least ${minReady} wanted` },
  ];
  const updated = counted.filter((member) => member.current && !fresh.has(member)).length;
  const state = old.length === 0 ? 'Complete' : policy.paused ? 'Paused' : 'Progressing';
  const requeueAfterMs = waits.length > 0 ? Math.max(1, Math.min(...waits)) : undefined;
  return { actions, conditions, rollout: { state, updated, replicas: policy.replicas }, ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}) };
}
