// The Gateway page's figures from GET /api/gateway: the totals (summed over the Proxies, where every
// connection is counted once), failures in words, and what each refusal cause means. Pure.
import type { GatewayProxyTraffic, GatewayView } from '@/lib/api/gateway';

export interface GatewayTotals {
  bytesIn: number;
  bytesOut: number;
  open: number;
  tunnels: number;
}

export function gatewayTotals(view: Pick<GatewayView, 'proxies'>): GatewayTotals {
  const totals: GatewayTotals = { bytesIn: 0, bytesOut: 0, open: 0, tunnels: 0 };
  for (const proxy of view.proxies) {
    totals.bytesIn += proxy.bytesIn;
    totals.bytesOut += proxy.bytesOut;
    totals.open += proxy.open;
    totals.tunnels += proxy.tunnels;
  }
  return totals;
}

/** `3 reset, 1 refused`: most frequent first; `none` when there were none. */
export function failureSummary(failures: GatewayProxyTraffic['failures']): string {
  const entries = Object.entries(failures).filter(([, count]) => count > 0);
  if (entries.length === 0) return 'none';
  return entries
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([cause, count]) => `${count} ${cause}`)
    .join(', ');
}

/** Refusal causes (lib/api/gateway.ts) in words; an unknown code is shown as it is. */
export const refusalCauses: Record<string, string> = {
  'no-credentials': 'no gateway token given',
  'bad-token': 'unknown or revoked gateway token',
  'rate-limited': 'too many wrong tokens from this address',
  'token-check-failed': 'the token could not be checked',
  'no-ready-proxy': 'no Ready proxy for the selector',
  'proxy-not-ready': 'the pinned Proxy is not Ready',
  'proxy-unknown': 'no such Proxy',
  'set-unknown': 'no such set',
  'username-invalid': 'the username does not follow the grammar',
  'upstream-failed': 'every proxy tried failed',
};

export const refusalCause = (cause: string): string => refusalCauses[cause] ?? cause;

/** Rows in name order, so a table refreshed live does not reshuffle under the reader. */
export const byName = <T>(rows: T[], name: (row: T) => string): T[] => [...rows].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
