// How the server is reached, from the environment: APP_ORIGIN (the origins browsers use for the
// dashboard, comma-separated; default: the address a connection reached and the loopback names,
// on the server's port) and TRUST_PROXY (addresses or CIDRs of reverse proxies whose forwarding
// headers count; default none, so the socket's peer is the client). Read per request, so a test
// or a restart with another environment needs nothing reset; instrumentation checks them at start.
import { BlockList, isIP } from 'node:net';
import { SettingsError } from '@/server/control/settings';

export interface Exposure {
  /** normalised origins (`https://dash.example`); undefined: the connection's own addresses */
  appOrigins: string[] | undefined;
  trustedProxies: AddressSet;
}

/** A set of addresses and networks (IPv4 and IPv6). */
export class AddressSet {
  private readonly list = new BlockList();
  constructor(readonly entries: readonly string[] = []) {
    for (const entry of entries) this.add(entry);
  }

  private add(entry: string): void {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0)
      throw new SettingsError('TRUST_PROXY', `${JSON.stringify(entry)} is not an IP address or CIDR (e.g. 10.0.0.5, 10.0.0.0/24, fd00::/64)`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) return this.list.addAddress(address, type);
    const bits = Number(prefix);
    if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128))
      throw new SettingsError('TRUST_PROXY', `${JSON.stringify(entry)} has an invalid prefix length`);
    this.list.addSubnet(address, bits, type);
  }

  has(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

const listOf = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

function parseOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SettingsError('APP_ORIGIN', `${JSON.stringify(text)} is not a URL (e.g. https://dash.example.net)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingsError('APP_ORIGIN', `${JSON.stringify(text)} must be an http or https origin`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.username) {
    throw new SettingsError('APP_ORIGIN', `${JSON.stringify(text)} must be an origin only: scheme, host and port, no path`);
  }
  return url.origin;
}

export function exposureFromEnv(env: Record<string, string | undefined> = process.env): Exposure {
  const origins = listOf(env.APP_ORIGIN).map(parseOrigin);
  return { appOrigins: origins.length > 0 ? origins : undefined, trustedProxies: new AddressSet(listOf(env.TRUST_PROXY)) };
}

const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];

const hostPart = (address: string): string => (isIP(address) === 6 ? `[${address}]` : address);

/** The origins a browser may send for a server reached at `localAddress:port` when APP_ORIGIN is unset. */
export function defaultOrigins(local: { address?: string; port: number }): string[] {
  // A link-local address with its zone (`fe80::1%eth0`) is no origin a browser sends: skipped.
  const own = local.address && !local.address.includes('%') ? [hostPart(local.address)] : [];
  return [...new Set([...loopbackNames, ...own])].map((host) => new URL(`http://${host}:${local.port}`).origin);
}
