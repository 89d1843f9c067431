// The set's status after a pass: the decisions' conditions (lastTransitionTime moves only when a
// status flips), the rollout, the replacement history (newest kept), the budget stop latched to
// the generation it happened under and released by any newer one, displaced members and hosts down.
import type { ProxySetCondition } from '@/lib/api/proxysets';
import type { ProxyRecord } from '@/server/store/proxies';
import type { ProxySetRecord, ProxySetStatus } from '@/server/store/proxy-sets';
import type { AppliedActions } from './proxy-set-apply';
import type { SetDecision } from './proxy-set-decide';

/** History kept beyond any budget window: the page shows the last ones, the back-off reads the tail. */
const keptReplacements = 50;

/** A stop from an older generation: the admin has changed, scaled or resumed the set since. */
export const budgetReleased = (set: ProxySetRecord): boolean =>
  set.status.exhaustedGeneration !== undefined && set.status.exhaustedGeneration !== set.generation;

function mergeConditions(before: readonly ProxySetCondition[], updates: SetDecision['conditions'], now: string): ProxySetCondition[] {
  return updates.map((update) => {
    const previous = before.find((condition) => condition.type === update.type);
    return { ...update, lastTransitionTime: previous && previous.status === update.status ? previous.lastTransitionTime : now };
  });
}

export function nextSetStatus(options: {
  set: ProxySetRecord;
  decision: SetDecision;
  applied: AppliedActions;
  hostsDown: Record<string, string>;
  members: readonly ProxyRecord[];
  nowMs: number;
}): ProxySetStatus {
  const { set, decision, applied, nowMs } = options;
  const now = new Date(nowMs).toISOString();
  const released = budgetReleased(set);
  const latched = applied.exhausted || (!released && set.status.exhaustedGeneration !== undefined);
  const existing = new Set(options.members.map((member) => member.name));
  const budgetSince = released ? now : set.status.budgetSince;
  return {
    conditions: mergeConditions(set.status.conditions, decision.conditions, now),
    rollout: decision.rollout,
    replacements: [...set.status.replacements, ...applied.replacements].slice(-keptReplacements),
    ...(latched ? { exhaustedGeneration: set.generation } : {}),
    ...(budgetSince ? { budgetSince } : {}),
    displaced: [...new Set([...set.status.displaced, ...applied.displaced])].filter((name) => existing.has(name)),
    hostsDown: options.hostsDown,
    observedGeneration: set.generation,
  };
}
