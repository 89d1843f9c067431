// Fetching a host's key before trusting it (what `ssh-keyscan` does): a TCP connect and the SSH key
// exchange, offering the host key algorithms in the order a later dial offers them for a host
// known_hosts does not know yet, so the key shown is the key that dial will be presented. The
// handshake stops at the host key: nothing is authenticated, nothing is sent beyond the kex.
// Also: how that key stands against the known_hosts file, and writing it there, hashed, as
// `ssh-keyscan -H` would.
import { createHmac, randomBytes } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import ssh2 from 'ssh2';
import { formatEndpoint, knownHostsName, parseSshAddress, type SshEndpoint } from './address';
import { startDialBudget } from './budget';
import { connectTcp, hostKeyAlgorithmOrder, sshDialDefaults } from './dial';
import { SshDialError } from './errors';
import { keyBlobType, keyFingerprint, knownKeysFor, parseKnownHosts } from './known-hosts';

export interface ScannedHostKey {
  endpoint: SshEndpoint;
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`, ... */
  keyType: string;
  /** the public key blob (public: safe to show and store) */
  key: Buffer;
  /** `SHA256:...` as `ssh-keygen -l` prints it */
  fingerprint: string;
}

class KeyCaptured extends Error {}

/** Connects to `address` and returns the host key it presents. Rejects with SshDialError. */
export async function scanHostKey(options: { address: string; signal?: AbortSignal; timeoutMs?: number }): Promise<ScannedHostKey> {
  let endpoint: SshEndpoint;
  try {
    endpoint = parseSshAddress(options.address);
  } catch (err) {
    throw new SshDialError({ code: 'SSH_INVALID_ADDRESS', stage: 'tcp', message: (err as Error).message, cause: err });
  }
  const target = formatEndpoint(endpoint);
  const budget = startDialBudget({ signal: options.signal, timeoutMs: options.timeoutMs ?? sshDialDefaults.timeoutMs, target });
  try {
    const socket = await connectTcp(endpoint, { budget, target });
    const key = await new Promise<Buffer>((resolve, reject) => {
      const client = new ssh2.Client();
      let captured: Buffer | undefined;
      const finish = (err?: SshDialError) => {
        budget.signal.removeEventListener('abort', onAbort);
        socket.destroy();
        if (captured) resolve(captured);
        else
          reject(
            err ??
              new SshDialError({
                code: 'SSH_HANDSHAKE',
                stage: 'ssh',
                message: `ssh ${target}: the server closed the connection before presenting a host key`,
              }),
          );
      };
      const onAbort = () => finish(budget.error('ssh'));
      budget.signal.addEventListener('abort', onAbort, { once: true });
      client.on('error', (err) =>
        finish(
          err instanceof KeyCaptured
            ? undefined
            : new SshDialError({ code: 'SSH_HANDSHAKE', stage: 'ssh', message: `ssh ${target}: ${err.message}`, cause: err }),
        ),
      );
      client.on('close', () => finish());
      client.connect({
        sock: socket,
        username: 'host-key-scan',
        algorithms: { serverHostKey: hostKeyAlgorithmOrder([]) },
        readyTimeout: 0,
        hostVerifier: (presented: Buffer) => {
          captured = Buffer.from(presented);
          return false; // stop here: we only wanted the key
        },
      });
    });
    return { endpoint, keyType: keyBlobType(key) ?? 'unknown', key, fingerprint: keyFingerprint(key) };
  } finally {
    budget.dispose();
  }
}

export type KnownHostStanding =
  | { status: 'known' }
  | { status: 'unknown' }
  /** known_hosts holds another key of the same type for this name: the key changed, or someone is in the middle */
  | { status: 'changed'; knownFingerprint: string; line: number };

/** How a scanned key stands against the known_hosts text. */
export function knownHostStanding(knownHostsText: string, scanned: ScannedHostKey): KnownHostStanding {
  const known = knownKeysFor(parseKnownHosts(knownHostsText), scanned.endpoint);
  if (known.some((entry) => entry.key.equals(scanned.key))) return { status: 'known' };
  const sameType = known.find((entry) => entry.keyType === scanned.keyType);
  if (sameType) return { status: 'changed', knownFingerprint: keyFingerprint(sameType.key), line: sameType.line };
  return { status: 'unknown' };
}

/** A known_hosts line for `endpoint` with its name hashed (`|1|salt|hmac`), as `ssh-keyscan -H` writes. */
export function hashedKnownHostsLine(endpoint: SshEndpoint, options: { keyType: string; key: Buffer }): string {
  const salt = randomBytes(20);
  const digest = createHmac('sha1', salt).update(knownHostsName(endpoint)).digest();
  return `|1|${salt.toString('base64')}|${digest.toString('base64')} ${options.keyType} ${options.key.toString('base64')}\n`;
}

export async function readKnownHostsText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/** Appends the key, hashed, to the known_hosts file (created 0600 when missing). */
export async function appendKnownHost(path: string, scanned: ScannedHostKey): Promise<void> {
  const current = await readKnownHostsText(path);
  const separator = current === '' || current.endsWith('\n') ? '' : '\n';
  await appendFile(path, separator + hashedKnownHostsLine(scanned.endpoint, scanned), { mode: 0o600 });
}
