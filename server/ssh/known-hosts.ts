// Our known_hosts matcher (no package does this well enough; see DESIGN.md). Parses OpenSSH's
// format and decides whether a presented host key is acceptable, following OpenSSH's
// check_key_in_hostkeys: a revoked key fails even if another line accepts it; an exact key match
// passes; a different key of the same type is a changed key; anything else is an unknown host.
//
// Supported: plain names, `[host]:port` for ports other than 22, comma-separated lists,
// `*`/`?` wildcards, `!` negation, hashed `|1|salt|hmac` names, `@revoked`.
// Ignored: `@cert-authority` lines (we do not verify host certificates, so a CA line can neither
// accept nor reject a plain host key), old SSH-1 `bits exponent modulus` lines, and any line
// that does not parse. Error texts name line numbers only, never the content.

import { createHash } from 'node:crypto';
import { knownHostsName, type SshEndpoint } from './address';
import { HostKeyError } from './errors';
import { parseHostPatterns, type HostMatcher } from './host-patterns';

type Marker = 'revoked' | 'cert-authority';

interface KnownHostEntry {
  line: number;
  marker: Marker | undefined;
  hosts: HostMatcher;
  keyType: string;
  key: Buffer;
}

export interface KnownHosts {
  entries: KnownHostEntry[];
  /** 1-based numbers of lines that were skipped because they do not parse. */
  malformedLines: number[];
  /** 1-based numbers of `@cert-authority` lines, which are read but never used. */
  ignoredCertAuthorityLines: number[];
}

const markers: Record<string, Marker> = { '@revoked': 'revoked', '@cert-authority': 'cert-authority' };
const base64Token = /^[A-Za-z0-9+/]+={0,2}$/;

export function parseKnownHosts(text: string): KnownHosts {
  const result: KnownHosts = { entries: [], malformedLines: [], ignoredCertAuthorityLines: [] };
  text.split(/\r?\n/).forEach((raw, index) => {
    const lineNumber = index + 1;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const entry = parseLine(line, lineNumber);
    if (!entry) result.malformedLines.push(lineNumber);
    else if (entry.marker === 'cert-authority') result.ignoredCertAuthorityLines.push(lineNumber);
    else result.entries.push(entry);
  });
  return result;
}

function parseLine(line: string, lineNumber: number): KnownHostEntry | undefined {
  const fields = line.split(/\s+/);
  let marker: Marker | undefined;
  if (fields[0]?.startsWith('@')) {
    marker = markers[fields.shift() ?? ''];
    if (!marker) return undefined;
  }
  const [hostField, keyType, key64] = fields;
  if (!hostField || !keyType || !key64 || !base64Token.test(key64)) return undefined;
  const hosts = parseHostPatterns(hostField);
  const key = Buffer.from(key64, 'base64');
  if (!hosts || keyBlobType(key) !== keyType) return undefined;
  return { line: lineNumber, marker, hosts, keyType, key };
}

/** The algorithm name at the start of an SSH public key blob (RFC 4253 §6.6), or undefined. */
export function keyBlobType(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (length === 0 || length > 64 || blob.length < 4 + length) return undefined;
  return blob.subarray(4, 4 + length).toString('latin1');
}

export function keyFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

function entriesFor(knownHosts: KnownHosts, endpoint: SshEndpoint): KnownHostEntry[] {
  const name = knownHostsName(endpoint);
  return knownHosts.entries.filter((entry) => entry.hosts.matches(name));
}

/** The keys known_hosts accepts for this endpoint (revoked and CA lines left out). */
export function knownKeysFor(knownHosts: KnownHosts, endpoint: SshEndpoint): Array<{ line: number; keyType: string; key: Buffer }> {
  return entriesFor(knownHosts, endpoint)
    .filter((entry) => entry.marker === undefined)
    .map(({ line, keyType, key }) => ({ line, keyType, key }));
}

/** Key types known_hosts holds for this endpoint, so the handshake can ask for one of those. */
export function knownKeyTypes(knownHosts: KnownHosts, endpoint: SshEndpoint): string[] {
  const types = entriesFor(knownHosts, endpoint)
    .filter((entry) => entry.marker === undefined)
    .map((entry) => entry.keyType);
  return [...new Set(types)];
}

/** Returns undefined when the key is acceptable, otherwise the HostKeyError to fail with. */
export function checkHostKey(knownHosts: KnownHosts, options: { endpoint: SshEndpoint; key: Buffer; knownHostsFile: string }): HostKeyError | undefined {
  const { endpoint, key, knownHostsFile } = options;
  const name = knownHostsName(endpoint);
  const presentedType = keyBlobType(key) ?? 'unknown';
  const fingerprint = keyFingerprint(key);
  const matching = entriesFor(knownHosts, endpoint);
  const fail = (reason: HostKeyError['reason'], problem: string) =>
    new HostKeyError({
      reason,
      knownHostsName: name,
      fingerprint,
      message: `host key for ${name} (${presentedType} ${fingerprint}) ${problem}`,
      file: knownHostsFile,
    });

  const revoked = matching.find((entry) => entry.marker === 'revoked' && entry.key.equals(key));
  if (revoked) return fail('revoked', `is marked @revoked on line ${revoked.line} of the known_hosts file`);

  const usable = matching.filter((entry) => entry.marker === undefined);
  if (usable.some((entry) => entry.key.equals(key))) return undefined;

  const sameType = usable.find((entry) => entry.keyType === presentedType);
  if (sameType) {
    return fail('changed', `does not match line ${sameType.line} of the known_hosts file: the host key has changed`);
  }
  if (usable.length > 0) {
    const otherTypes = [...new Set(usable.map((entry) => entry.keyType))].join(', ');
    return fail('unknown', `is not in the known_hosts file, which has only ${otherTypes} keys for this host`);
  }
  return fail('unknown', 'is not in the known_hosts file');
}
