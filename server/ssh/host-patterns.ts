// The host field of a known_hosts line: either hashed names (`|1|salt|hmac`, HMAC-SHA1 of the
// name keyed by the salt, as `ssh-keygen -H` and `ssh-keyscan -H` write them) or a comma-separated
// list of patterns with `*` and `?` wildcards and `!` negation, matched the way OpenSSH's
// match_hostname does: a matching negated pattern vetoes the line, otherwise any matching
// positive pattern accepts it.

import { createHmac, timingSafeEqual } from 'node:crypto';

type HostPattern = { kind: 'hashed'; salt: Buffer; digest: Buffer } | { kind: 'pattern'; negated: boolean; regex: RegExp };

export interface HostMatcher {
  /** `name` is what knownHostsName() returns: `host` or `[host]:port`. */
  matches(name: string): boolean;
}

const hashedPrefix = '|1|';
const sha1Length = 20;
const base64Token = /^[A-Za-z0-9+/]+={0,2}$/;

/** Returns undefined when the field is malformed (the caller skips the line). */
export function parseHostPatterns(field: string): HostMatcher | undefined {
  const patterns: HostPattern[] = [];
  for (const token of field.split(',')) {
    const pattern = token.startsWith(hashedPrefix) ? parseHashed(token) : parseWildcard(token);
    if (!pattern) return undefined;
    patterns.push(pattern);
  }
  return { matches: (name) => matchesAny(patterns, name.toLowerCase()) };
}

function matchesAny(patterns: HostPattern[], name: string): boolean {
  let accepted = false;
  for (const pattern of patterns) {
    if (pattern.kind === 'hashed') {
      if (hashedMatches(pattern, name)) accepted = true;
      continue;
    }
    if (!pattern.regex.test(name)) continue;
    if (pattern.negated) return false;
    accepted = true;
  }
  return accepted;
}

function hashedMatches(pattern: { salt: Buffer; digest: Buffer }, name: string): boolean {
  const digest = createHmac('sha1', pattern.salt).update(name).digest();
  return timingSafeEqual(digest, pattern.digest);
}

function parseHashed(token: string): HostPattern | undefined {
  const [salt64, digest64, ...rest] = token.slice(hashedPrefix.length).split('|');
  if (rest.length > 0 || !salt64 || !digest64) return undefined;
  if (!base64Token.test(salt64) || !base64Token.test(digest64)) return undefined;
  const digest = Buffer.from(digest64, 'base64');
  if (digest.length !== sha1Length) return undefined;
  return { kind: 'hashed', salt: Buffer.from(salt64, 'base64'), digest };
}

function parseWildcard(token: string): HostPattern | undefined {
  const negated = token.startsWith('!');
  const body = (negated ? token.slice(1) : token).toLowerCase();
  if (body === '' || body.includes('|')) return undefined;
  const source = body
    .split('')
    .map((char) => wildcardRegex[char] ?? char.replace(/[.+^${}()|[\]\\]/g, '\\$&'))
    .join('');
  return { kind: 'pattern', negated, regex: new RegExp(`^${source}$`) };
}

const wildcardRegex: Record<string, string> = { '*': '.*', '?': '.' };
