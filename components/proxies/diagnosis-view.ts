// The diagnosis as the dashboard presents it: which Proxies the table sends to their checklist
// ("why?"), where that link goes, and the checklist's order on the page (failing steps first).
import type { DiagnosisStep } from '@/lib/api/diagnosis';
import type { ProxyView } from '@/lib/proxy-spec';

/**
 * A Proxy not Ready for longer than this gets a "why?" link in the Proxies table: long enough for
 * a normal first boot to finish (a cached image boots and answers within a couple of minutes),
 * short enough that a stuck Proxy is explained before anyone goes looking.
 */
export const explainNotReadyAfterMs = 5 * 60_000;

export const diagnosisAnchor = 'diagnosis';

export const diagnosisHref = (name: string): string => `/proxies/${encodeURIComponent(name)}#${diagnosisAnchor}`;

/**
 * Since when (epoch ms) the Proxy has not been Ready, at the latest: the earliest transition of a
 * condition that is not True now (that condition alone has kept it from Ready since), or its
 * creation when no condition says so. Undefined for a Ready or deleting Proxy.
 */
export function notReadySince(proxy: ProxyView): number | undefined {
  if (proxy.status.phase === 'Ready' || proxy.status.phase === 'Deleting' || proxy.deletionRequestedAt) return undefined;
  const transitions = proxy.status.conditions
    .filter((condition) => condition.status !== 'True')
    .map((condition) => Date.parse(condition.lastTransitionTime))
    .filter((ms) => Number.isFinite(ms));
  return transitions.length > 0 ? Math.min(...transitions) : Date.parse(proxy.createdAt);
}

export function needsExplaining(proxy: ProxyView, nowMs: number): boolean {
  const since = notReadySince(proxy);
  return since !== undefined && nowMs - since > explainNotReadyAfterMs;
}

/** Failing steps first, then the rest, each group in checklist order. */
export function failingFirst(steps: readonly DiagnosisStep[]): DiagnosisStep[] {
  return [...steps.filter((step) => step.status === 'fail'), ...steps.filter((step) => step.status !== 'fail')];
}
