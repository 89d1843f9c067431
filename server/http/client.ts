// Facts about the client of a request that the auth layer needs: its address (for login rate
// limits) and whether it came over HTTPS (for the cookie's Secure flag). Forwarding headers
// (X-Forwarded-For, X-Forwarded-Proto) count only when the connection comes from a trusted proxy
// (TRUST_PROXY); otherwise anyone could claim any address or scheme in them.
import { connectionOf, plainAddress } from './connection';
import type { Exposure } from './exposure';

/** The key of requests whose connection is unknown (they arrived while the server was starting). */
export const unidentifiedClient = 'unidentified';

/**
 * The client's address: the socket's peer; behind trusted proxies, the right-most X-Forwarded-For
 * entry that is not itself a trusted proxy (each proxy appends the peer it saw).
 */
export function clientAddress(request: Request, exposure: Pick<Exposure, 'trustedProxies'>): string {
  const connection = connectionOf(request);
  if (!connection) return unidentifiedClient;
  const trusted = exposure.trustedProxies;
  if (!trusted.has(connection.peer)) return connection.peer;
  const hops = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((hop) => plainAddress(hop.trim()))
    .filter((hop) => hop !== '');
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index] as string;
    if (!trusted.has(hop)) return hop;
  }
  return hops[0] ?? connection.peer;
}

/**
 * Whether the browser reached us over HTTPS. This server speaks plain HTTP itself, so only a
 * trusted proxy's X-Forwarded-Proto can say so.
 */
export function isHttps(request: Request, exposure: Pick<Exposure, 'trustedProxies'>): boolean {
  const connection = connectionOf(request);
  if (!connection || !exposure.trustedProxies.has(connection.peer)) return false;
  return request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}
