// Capped exponential backoff for failed reconcile passes, per Proxy: base, 2×base, 4×base, ...
// up to cap. Defaults: 1 s doubling to a 5 min cap (reached after the 10th consecutive failure).
// No jitter: one process, a handful of Proxies, and deterministic tests matter more here.
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

export const defaultBackoff: BackoffPolicy = { baseMs: 1_000, capMs: 5 * 60_000 };

/** The delay before the next attempt after `failures` consecutive failures (1 = the first). */
export function backoffDelay(failures: number, policy: BackoffPolicy = defaultBackoff): number {
  if (failures <= 0) return 0;
  // 2^30 × base already exceeds any sane cap; clamping the exponent keeps the number finite.
  const exponent = Math.min(failures - 1, 30);
  return Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
}
