// Sticky sessions by rendezvous (highest-random-weight) hashing: a session goes to the proxy with
// the highest weight(session, proxy name). The weight depends on nothing but those two strings, so
// every replica of the dashboard picks the same proxy with no shared state; when a proxy leaves
// the pool only the sessions it had move (each to its own next-highest proxy), and a new proxy
// takes about 1/N of them (those for which it now weighs most).
//
// weight = mix64(h(session) XOR h(proxy)) where h is the first 64 bits of SHA-256 and mix64 the
// xorshift-multiply finaliser, as go-rendezvous (dgryski) does: the SHA-256 of the session is
// computed once per choice and each proxy name's is cached, so a choice over N proxies costs one
// hash plus N cheap mixes (about 80 ns each here) rather than N hashes (about 3 us each).
// Changing any of this moves every session: the unit test pins the weights.
import { hash } from 'node:crypto';

const mask64 = (1n << 64n) - 1n;
const multiplier = 2685821657736338717n;

function hash64(text: string): bigint {
  return hash('sha256', text, 'buffer').readBigUInt64BE(0);
}

// Proxy names are few but churn (set members are replaced under new names): a bounded cache,
// emptied when full, rather than one that grows for the life of the process. It holds pure values,
// so a copy per Next bundle (module state is per bundle) changes no answer.
const maxCachedNames = 4096;
const nameHashes = new Map<string, bigint>();

function nameHash(name: string): bigint {
  let value = nameHashes.get(name);
  if (value === undefined) {
    if (nameHashes.size >= maxCachedNames) nameHashes.clear();
    value = hash64(name);
    nameHashes.set(name, value);
  }
  return value;
}

function mix64(value: bigint): bigint {
  let x = value;
  x ^= x >> 12n;
  x ^= (x << 25n) & mask64;
  x ^= x >> 27n;
  return (x * multiplier) & mask64;
}

/** The weight of `proxy` for `session`: higher wins. */
export function rendezvousWeight(session: string, proxy: string): bigint {
  return mix64(hash64(session) ^ nameHash(proxy));
}

/** The pool's proxy names, highest weight for `session` first (ties, never seen in practice, by name). */
export function rendezvousRank(session: string, proxies: readonly string[]): string[] {
  const sessionHash = hash64(session);
  return proxies
    .map((name) => ({ name, weight: mix64(sessionHash ^ nameHash(name)) }))
    .sort((a, b) => (a.weight === b.weight ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.weight > b.weight ? -1 : 1))
    .map((entry) => entry.name);
}

/** The proxy `session` sticks to in this pool; undefined when the pool is empty. */
export function rendezvousChoose(session: string, proxies: readonly string[]): string | undefined {
  const sessionHash = hash64(session);
  let best: { name: string; weight: bigint } | undefined;
  for (const name of proxies) {
    const weight = mix64(sessionHash ^ nameHash(name));
    if (!best || weight > best.weight || (weight === best.weight && name < best.name)) best = { name, weight };
  }
  return best?.name;
}
