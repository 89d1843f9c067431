// A reverse proxy on this machine that TRUST_PROXY does not name makes every client look like
// 127.0.0.1 (or ::1): they then share one login limit, and five wrong passwords from anyone lock
// the admin out. Requests from loopback that carry another client in X-Forwarded-For are the sign
// of it; the server says so once per process, not on every request.
import { isIP } from 'node:net';
import { logger as childLogger } from '@/server/telemetry/logger';
import { connectionOf, plainAddress } from './connection';
import type { Exposure } from './exposure';

export interface WarnedOnce {
  warned: boolean;
}

// Process-wide (Next bundles each route separately, so a module variable would be one per route).
const stateKey = Symbol.for('kvm2-proxies.untrusted-forwarding-warned');
type GlobalWithState = typeof globalThis & { [stateKey]?: WarnedOnce };

function processState(): WarnedOnce {
  const holder = globalThis as GlobalWithState;
  holder[stateKey] ??= { warned: false };
  return holder[stateKey];
}

function isLoopback(address: string): boolean {
  const plain = plainAddress(address);
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1';
}

export function warnUntrustedForwarding(options: {
  request: Request;
  exposure: Pick<Exposure, 'trustedProxies'>;
  log?: { warn(fields: object, message: string): void };
  /** tests pass their own; the server keeps one per process */
  state?: WarnedOnce;
}): void {
  const state = options.state ?? processState();
  if (state.warned || options.exposure.trustedProxies.entries.length > 0) return;
  const connection = connectionOf(options.request);
  if (!connection || !isLoopback(connection.peer)) return;
  // `next start` adds X-Forwarded-For naming the peer itself when a client sent none: only
  // another address there means a proxy forwarded someone.
  const forwarded = (options.request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '' && !isLoopback(hop));
  if (forwarded.length === 0) return;
  state.warned = true;
  (options.log ?? childLogger('http')).warn(
    { peer: connection.peer, forwardedFor: forwarded },
    `requests from this machine carry X-Forwarded-For, as from a reverse proxy, but TRUST_PROXY is not set: every client behind that proxy counts as ${connection.peer} and shares one login limit, so a few wrong passwords from anyone lock out everyone. If the proxy is yours, set TRUST_PROXY=${connection.peer}`,
  );
}
