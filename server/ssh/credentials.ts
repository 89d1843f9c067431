// Reads and parses the private key and known_hosts files. Called on every dial and never cached,
// so a rotated key or host key is picked up by the next connection without a restart.
//
// A missing file is transient (the Secret that provides it may not have landed yet); a file that
// exists but does not parse is permanent and names the path. Messages never quote file content.

import { readFile } from 'node:fs/promises';
import { SshDialError } from './errors';
import { parseKnownHosts, type KnownHosts } from './known-hosts';
import { parsePrivateKey, PrivateKeyParseError, type PrivateKey } from './private-key';

export interface CredentialFiles {
  keyFile: string;
  /** Required unless insecureIgnoreHostKey. */
  knownHostsFile?: string;
  insecureIgnoreHostKey?: boolean;
}

export interface Credentials {
  privateKey: PrivateKey;
  /** Undefined when host-key verification is skipped (insecureIgnoreHostKey). */
  knownHosts: KnownHosts | undefined;
}

export async function loadCredentials(files: CredentialFiles): Promise<Credentials> {
  const keyText = await readCredentialFile(files.keyFile, 'ssh key');
  const privateKey = parseKeyFile(keyText, files.keyFile);
  if (files.insecureIgnoreHostKey) return { privateKey, knownHosts: undefined };

  if (!files.knownHostsFile) {
    throw invalid('no known_hosts file is configured and insecureIgnoreHostKey is off');
  }
  const knownHostsText = await readCredentialFile(files.knownHostsFile, 'known_hosts');
  return { privateKey, knownHosts: parseKnownHostsFile(knownHostsText, files.knownHostsFile) };
}

async function readCredentialFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new SshDialError({
      code: 'SSH_CREDENTIALS_MISSING',
      stage: 'credentials',
      message: `reading ${what} file ${path}: ${errno}`,
      cause: err,
    });
  }
}

function parseKeyFile(text: string, path: string): PrivateKey {
  try {
    return parsePrivateKey(text);
  } catch (err) {
    const reason = err instanceof PrivateKeyParseError ? err.message : 'unreadable key';
    throw invalid(`parsing ssh key file ${path}: ${reason}`, err);
  }
}

// Malformed lines are skipped like OpenSSH does; a file with content but not one usable line is
// the wrong file altogether (a private key, a config file), which no retry will fix.
function parseKnownHostsFile(text: string, path: string): KnownHosts {
  const knownHosts = parseKnownHosts(text);
  const usableLines = knownHosts.entries.length + knownHosts.ignoredCertAuthorityLines.length;
  if (usableLines === 0 && knownHosts.malformedLines.length > 0) {
    const lines = summariseLines(knownHosts.malformedLines);
    throw invalid(`parsing known_hosts file ${path}: no valid entry (malformed lines: ${lines})`);
  }
  return knownHosts;
}

function summariseLines(lines: number[]): string {
  const shown = lines.slice(0, 5).join(', ');
  return lines.length > 5 ? `${shown} and ${lines.length - 5} more` : shown;
}

function invalid(message: string, cause?: unknown): SshDialError {
  // The cause of a key parse error is our own PrivateKeyParseError, whose text is already in the
  // message; it never holds key bytes either.
  return new SshDialError({ code: 'SSH_CREDENTIALS_INVALID', stage: 'credentials', message, cause });
}
