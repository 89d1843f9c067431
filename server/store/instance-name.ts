// The name of a Proxy's instance (its VM) depends only on the Proxy's name, so a repeated Create
// after a crash finds (and the provider adopts) the instance it made before. It lives with the
// store because the store indexes every Proxy by it (proxies.instance_name); the control plane
// reaches it through server/control/names.ts.
import { createHash } from 'node:crypto';

/** `proxy-` plus the first 16 hex characters of sha256(name): a valid domain and volume name. */
export function instanceName(proxyName: string): string {
  return `proxy-${createHash('sha256').update(proxyName).digest('hex').slice(0, 16)}`;
}
