// What the TCP connection of a request says: the peer's address and the local address and port it
// reached. A route handler gets a web Request without the socket, and `next start` fills
// X-Forwarded-For only when the client sent none (so a client can claim any address there). So the
// process stamps every incoming request with its connection facts, from Node's own
// `http.server.request.start` diagnostics channel, in a header that carries a per-process random
// key: a client can send that header too, but cannot know the key, so a forged stamp reads as none.
// Requests that arrive before the hook is installed (while the server starts) carry no stamp.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export const connectionHeader = 'x-kvm2-connection';

export interface ConnectionFacts {
  /** the peer's address (IPv4-mapped IPv6 addresses as plain IPv4) */
  peer: string;
  /** the local address the connection reached */
  localAddress: string;
  localPort: number;
}

interface StampState {
  key: string;
}

const stateKey = Symbol.for('kvm2-proxies.connection-stamp');
const installedKey = Symbol.for('kvm2-proxies.connection-stamp-installed');
type GlobalWithStamp = typeof globalThis & { [stateKey]?: StampState; [installedKey]?: true };

/** `::ffff:192.0.2.1` → `192.0.2.1`: the same peer, however the socket reports it. */
export function plainAddress(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

function stampState(): StampState {
  const holder = globalThis as GlobalWithStamp;
  holder[stateKey] ??= { key: randomBytes(18).toString('base64url') };
  return holder[stateKey];
}

/** The header value that stamps a request with these facts (the hook writes it; tests build it). */
export function connectionStamp(facts: ConnectionFacts): string {
  return [stampState().key, facts.peer, facts.localAddress, String(facts.localPort)].join(' ');
}

/** Stamps every request this process's HTTP servers receive from now on. Idempotent. */
export function installConnectionStamp(): void {
  const holder = globalThis as GlobalWithStamp;
  if (holder[installedKey]) return;
  holder[installedKey] = true;
  subscribe('http.server.request.start', (message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    request.headers[connectionHeader] = connectionStamp({
      peer: plainAddress(socket.remoteAddress ?? ''),
      localAddress: plainAddress(socket.localAddress ?? ''),
      localPort: socket.localPort ?? 0,
    });
  });
}

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The connection facts of `request`, or undefined when it carries no genuine stamp. */
export function connectionOf(request: Request): ConnectionFacts | undefined {
  const [key, peer, localAddress, port, ...rest] = (request.headers.get(connectionHeader) ?? '').split(' ');
  if (rest.length > 0 || !key || !sameKey(key, stampState().key) || !peer || !localAddress || !port) return undefined;
  return { peer, localAddress, localPort: Number(port) };
}
