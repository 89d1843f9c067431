// Why the gateway gives a crawler no proxy: one table of causes and the HTTP status each answers
// with. The server sends `status`, and `message` in the X-Gateway-Error header and the body;
// `code` is the stable cause for logs, metrics and the Gateway page's last refusals. Messages are
// printable ASCII (names and labels follow their rules, client text is quoted with escapes), so
// they are safe in a header. 4xx: the crawler's configuration is wrong, retrying will not help;
// 5xx: the fleet cannot serve it now, retrying later may.
import type { GatewayUsernameError } from './username';

export const refusalStatus = {
  /** the username does not follow the grammar */
  'username-invalid': 400,
  /** -set names no ProxySet */
  'set-unknown': 400,
  /** -proxy names no Proxy */
  'proxy-unknown': 400,
  /** the pinned proxy exists but is not Ready, or is suspect or draining */
  'proxy-not-ready': 503,
  /** nothing in the selected pool is Ready (and not suspect or draining) */
  'no-ready-proxy': 503,
  /** this connection's attempts failed and no more may be made */
  'upstream-failed': 502,
} as const satisfies Record<string, number>;

export type RefusalCode = keyof typeof refusalStatus;

export interface GatewayRefusal {
  code: RefusalCode;
  status: number;
  message: string;
  set?: string;
  proxy?: string;
  /** the proxies this connection tried, in order */
  tried?: string[];
}

export function refusal(code: RefusalCode, message: string, fields: Pick<GatewayRefusal, 'set' | 'proxy' | 'tried'> = {}): GatewayRefusal {
  return { code, status: refusalStatus[code], message, ...fields };
}

export const usernameRefusal = (err: GatewayUsernameError): GatewayRefusal => refusal('username-invalid', err.message);
