// Conditions in the Kubernetes style: lastTransitionTime moves only when the status flips, so a
// condition that keeps failing with new messages still says since when it has been failing.
import type { Condition, ConditionStatus, ConditionType } from '@/lib/proxy-spec';

export interface ConditionUpdate {
  type: ConditionType;
  status: ConditionStatus;
  reason: string;
  message?: string;
  /** RFC 3339; becomes lastTransitionTime when the status flips */
  now: string;
}

export function setCondition(conditions: readonly Condition[], update: ConditionUpdate): Condition[] {
  const previous = conditions.find((condition) => condition.type === update.type);
  const next: Condition = {
    type: update.type,
    status: update.status,
    reason: update.reason,
    message: update.message ?? '',
    lastTransitionTime: previous && previous.status === update.status ? previous.lastTransitionTime : update.now,
  };
  return [...conditions.filter((condition) => condition.type !== update.type), next];
}

export function findCondition(conditions: readonly Condition[], type: ConditionType): Condition | undefined {
  return conditions.find((condition) => condition.type === type);
}
