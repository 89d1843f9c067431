// Replacing a set's Failed members and those not Ready in time: which ones a pass may replace, what
// the budget still allows, the back-off for replacements that keep failing the same way, and the
// replacement step of a pass (proxy-set-decide.ts runs it first, before the count is kept).
import { backoffDelay, type BackoffPolicy } from './backoff';
import type { DecideInput, ReplacementCause, SetAction, SetMember } from './proxy-set-decide';
import type { Spread } from './proxy-set-spread';

/** Replacements failing the same way wait 1 min, 2 min, 4 min ... up to 30 min. */
export const defaultReplacementBackoff: BackoffPolicy = { baseMs: 60_000, capMs: 30 * 60_000 };

const signature = (cause: ReplacementCause, firstFailure: string | null | undefined) => `${cause}:${firstFailure ?? ''}`;

/** Which members the controller should diagnose before deciding: those a pass may replace. */
export function replacementCandidates(input: Pick<DecideInput, 'policy' | 'members' | 'hosts' | 'nowMs'>): SetMember[] {
  const down = new Set(input.hosts.filter((host) => host.downSinceMs !== undefined).map((host) => host.name));
  return input.members.filter(
    (member) =>
      !member.deleting &&
      !member.displaced &&
      !(member.host !== undefined && down.has(member.host)) &&
      (member.failed || (!member.ready && member.notReadySinceMs !== undefined && input.nowMs - member.notReadySinceMs >= input.policy.readyTimeoutMs)),
  );
}

/** The replacements that count against the budget now: within its window, since the admin last acted. */
function recentReplacements(input: Pick<DecideInput, 'policy' | 'history' | 'budgetSinceMs' | 'nowMs'>) {
  return input.history.filter((record) => input.nowMs - record.atMs < input.policy.budget.windowMs && record.atMs >= (input.budgetSinceMs ?? -Infinity));
}

/** How many replacements the budget still allows now (0 once it ran out and the admin has not acted). */
export function replacementsAllowed(input: Pick<DecideInput, 'policy' | 'history' | 'exhausted' | 'budgetSinceMs' | 'nowMs'>): number {
  if (input.exhausted) return 0;
  return Math.max(0, input.policy.budget.max - recentReplacements(input).length);
}

/** What the replacement step leaves for the rest of the pass. */
export interface ReplacementStep {
  /** the counted members, each replaced one swapped for its replacement */
  counted: SetMember[];
  /** the replacements: counted, but nothing to delete or relabel */
  fresh: Set<SetMember>;
  /** the budget ran out during this pass */
  ranOut: boolean;
  /** what the ReplacementsExhausted condition and event say */
  exhaustedMessage: string;
  /** replacements within the budget's window */
  recentCount: number;
}

/** Replaces the candidates among `counted`, oldest first, within the budget and the back-off. */
export function replaceMembers(
  input: DecideInput,
  pass: { counted: SetMember[]; spread: Spread; actions: SetAction[]; waits: number[]; noHost: () => void },
): ReplacementStep {
  const { policy, nowMs } = input;
  const { spread, actions, waits, noHost } = pass;
  let counted = pass.counted;
  const fresh = new Set<SetMember>();
  const recent = recentReplacements(input);
  let allowed = replacementsAllowed(input);
  let ranOut = false;
  const last = input.history.at(-1);
  // how many replacements in a row (the last one included) failed the way the last one did
  const sameAsLast = last
    ? input.history.length -
      1 -
      input.history.findLastIndex((record) => signature(record.cause, record.firstFailure) !== signature(last.cause, last.firstFailure))
    : 0;
  const candidates = new Set(replacementCandidates({ ...input, members: counted }).map((member) => member.name));
  for (const member of counted.filter((candidate) => candidates.has(candidate.name)).sort((a, b) => a.createdAtMs - b.createdAtMs)) {
    const cause: ReplacementCause = member.failed ? 'Failed' : 'NotReady';
    const firstFailure = member.diagnosis ?? null;
    if (allowed <= 0) {
      ranOut = true;
      break;
    }
    if (last && signature(last.cause, last.firstFailure) === signature(cause, firstFailure)) {
      const until = last.atMs + backoffDelay(sameAsLast, input.backoff ?? defaultReplacementBackoff);
      if (nowMs < until) {
        waits.push(until - nowMs);
        continue;
      }
    }
    if (member.host !== undefined) spread.add(member.host, { delta: -1, current: member.current });
    const host = spread.pick();
    if (host === undefined) {
      if (member.host !== undefined) spread.add(member.host, { delta: 1, current: member.current });
      noHost();
      break;
    }
    spread.add(host, { delta: 1, current: true });
    allowed -= 1;
    actions.push({ kind: 'replace', member: member.name, host, cause, firstFailure });
    const replacement: SetMember = {
      name: `(replacing ${member.name})`,
      host,
      ready: false,
      failed: false,
      deleting: false,
      current: true,
      labelsCurrent: true,
      createdAtMs: nowMs,
      displaced: false,
    };
    fresh.add(replacement);
    counted = counted.map((existing) => (existing === member ? replacement : existing));
  }
  const lastDiagnoses = input.history
    .slice(-3)
    .map(
      (record) =>
        `${record.member}: ${record.cause === 'Failed' ? 'Failed' : 'not Ready in time'}${record.firstFailure ? ` (first failure: ${record.firstFailure})` : ''}`,
    )
    .join('; ');
  const exhaustedMessage = `${recent.length} replacements within the budget's window (at most ${policy.budget.max}); replacing stopped until the set is changed, scaled or resumed. Last: ${lastDiagnoses || 'none'}`;
  return { counted, fresh, ranOut, exhaustedMessage, recentCount: recent.length };
}
