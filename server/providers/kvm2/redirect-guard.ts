// Where an image URL's redirects may lead. The first URL is the admin's (the catalogue, a Proxy's
// spec) and is fetched wherever it points; a Location is the mirror's word, and without a rule it
// turns the dashboard into a blind SSRF probe of its own host and LAN (status and length show in
// the Proxy's events). A redirect may lead only to addresses no further inside than the first
// URL's own:
//   first URL public   -> public addresses only
//   first URL private  -> public and private (10/8, 172.16/12, 192.168/16, 100.64/10, the
//                         198.18/15 benchmark range the lab uses, fc00::/7): a LAN mirror's sibling
//   first URL loopback -> public, private and loopback (an image server on the dashboard's host,
//                         as the lab's 127.0.0.1:18080 redirecting across its ports)
// and never to link-local (169.254.169.254 is cloud metadata), unspecified (0.0.0.0 reaches the
// host itself) or multicast addresses. IPv4-mapped IPv6 addresses count as their IPv4 address.
//
// Judged on the address actually connected to: names are resolved by the dispatcher's own lookup,
// which refuses before any connection, so a name that answers differently the second time (DNS
// rebinding) is judged by the answer that is used. A name that resolves to several addresses keeps
// the allowed ones; the first URL's kind is the least trusted of its addresses.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';

export type AddressKind = 'public' | 'private' | 'loopback' | 'link-local' | 'unspecified' | 'multicast';

// Checked in this order; anything else is public.
const ranges: Array<[Exclude<AddressKind, 'public'>, string, number]> = [
  ['unspecified', '0.0.0.0', 8],
  ['unspecified', '::', 128],
  ['loopback', '127.0.0.0', 8],
  ['loopback', '::1', 128],
  ['link-local', '169.254.0.0', 16],
  ['link-local', 'fe80::', 10],
  ['multicast', '224.0.0.0', 4],
  ['multicast', '255.255.255.255', 32],
  ['multicast', 'ff00::', 8],
  ['private', '10.0.0.0', 8],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  ['private', '100.64.0.0', 10],
  ['private', '198.18.0.0', 15],
  ['private', 'fc00::', 7],
];

// BlockList matches an IPv4-mapped IPv6 address (::ffff:127.0.0.1, ::ffff:7f00:1) against IPv4 rules.
const lists = new Map<Exclude<AddressKind, 'public'>, BlockList>();
for (const [kind, network, prefix] of ranges) {
  let list = lists.get(kind);
  if (!list) lists.set(kind, (list = new BlockList()));
  list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
}

/** The kind of an IP address (not a name). */
export function addressKind(address: string): AddressKind {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, list] of lists) if (list.check(address, family)) return kind;
  return 'public';
}

const trust: Record<AddressKind, number> = { public: 0, private: 1, loopback: 2, 'link-local': -1, unspecified: -1, multicast: -1 };

/** Whether a redirect from an image URL whose address is of kind `first` may lead to an address of kind `target`. */
export function redirectAllowed(first: AddressKind, target: AddressKind): boolean {
  return trust[target] >= 0 && trust[target] <= Math.max(trust[first], 0);
}

/** A redirect led to an address it may not reach. */
export class RedirectRefusedError extends Error {
  override readonly name = 'RedirectRefusedError';
  readonly code = 'ERR_IMAGE_REDIRECT_REFUSED';
  constructor(readonly fields: { host: string; address: string; kind: AddressKind; first: AddressKind }) {
    super(
      `${fields.host === fields.address ? fields.address : `${fields.host} resolves to ${fields.address}`}, ${/^[aeiou]/.test(fields.kind) ? 'an' : 'a'} ${fields.kind} address, and the image URL's own is ${fields.first}`,
    );
  }
}

export interface RedirectGuardSeams {
  /** how names are resolved (dns.lookup); tests answer with chosen addresses */
  lookup?: LookupFunction;
  /** extra trusted CA certificates, PEM (tests' own https servers) */
  ca?: string;
}

export interface RedirectGuard {
  /** The dispatcher that resolves names through `lookup` and refuses what the rule forbids. */
  readonly dispatcher: Dispatcher;
  /** The judging lookup the dispatcher connects with (exposed for tests). */
  readonly lookup: LookupFunction;
  /** Before each request of the chain, hop 0 being the first URL; throws RedirectRefusedError for a literal address the rule forbids. */
  before(url: URL, hop: number): void;
  /** Closes the dispatcher once the last response's body is done. */
  close(): void;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

export function redirectGuard(seams: RedirectGuardSeams = {}): RedirectGuard {
  const base = seams.lookup ?? (dnsLookup as unknown as LookupFunction);
  let hop = 0;
  let first: AddressKind | undefined;

  const judge = (host: string, addresses: LookupAddress[]): LookupAddress[] => {
    const kinds = addresses.map((entry) => addressKind(entry.address));
    if (hop === 0) {
      first ??= kinds.reduce<AddressKind>((least, kind) => (trust[kind] < trust[least] ? kind : least), 'loopback');
      return addresses;
    }
    const firstKind = first ?? 'public';
    const allowed = addresses.filter((_entry, index) => redirectAllowed(firstKind, kinds[index] as AddressKind));
    if (allowed.length > 0) return allowed;
    throw new RedirectRefusedError({ host, address: addresses[0]?.address ?? '(none)', kind: kinds[0] ?? 'unspecified', first: firstKind });
  };

  const lookup: LookupFunction = (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (err, answer) => {
      if (err) return callback(err, '', 0);
      const addresses = typeof answer === 'string' ? [{ address: answer, family: isIP(answer) }] : answer;
      let allowed: LookupAddress[];
      try {
        allowed = judge(hostname, addresses);
      } catch (refusal) {
        return callback(refusal as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return callback(null, allowed);
      const chosen = allowed[0] as LookupAddress;
      callback(null, chosen.address, chosen.family);
    });
  };

  const agent = new Agent({ connect: { lookup, ...(seams.ca ? { ca: seams.ca } : {}) } });
  return {
    dispatcher: agent,
    lookup,
    before(url, index) {
      hop = index;
      const host = hostOf(url);
      if (!isIP(host)) return;
      const kind = addressKind(host);
      if (index === 0) first = kind;
      else if (!redirectAllowed(first ?? 'public', kind)) throw new RedirectRefusedError({ host, address: host, kind, first: first ?? 'public' });
    },
    close() {
      agent.close().catch(() => undefined);
    },
  };
}
