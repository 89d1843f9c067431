// Reads and parses the private key and known_hosts files. Called on every dial and never cached,
// so a rotated key or host key is picked up by the next connection without a restart.
//
// A missing file is transient (the Secret that provides it may not have landed yet); a file that
// exists but does not parse is permanent. Messages name the file by its role and carry its path in
// `file` (for the log, not for API answers); they never quote file content.

import { readFile, stat } from 'node:fs/promises';
import { SshDialError } from './errors';
import { keyFileModeProblem, octalMode } from './key-file-mode';
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
  await refuseWorldWritableKey(files.keyFile);
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
      message: `reading the ${what} file: ${errno}`,
      cause: err,
      file: path,
    });
  }
}

/** Anyone may have replaced a world-writable key file with their own key: never dial with it. */
async function refuseWorldWritableKey(path: string): Promise<void> {
  const { mode } = await stat(path);
  if (keyFileModeProblem(mode) !== 'world-writable') return;
  throw invalid(`the ssh key file is writable by every user (mode ${octalMode(mode)}); make it 0600, owned by the server's user`, path);
}

function parseKeyFile(text: string, path: string): PrivateKey {
  try {
    return parsePrivateKey(text);
  } catch (err) {
    const reason = err instanceof PrivateKeyParseError ? err.message : 'unreadable key';
    throw invalid(`parsing the ssh key file: ${reason}`, path, err);
  }
}

// Malformed lines are skipped like OpenSSH does; a file with content but not one usable line is
// the wrong file altogether (a private key, a config file), which no retry will fix.
function parseKnownHostsFile(text: string, path: string): KnownHosts {
  const knownHosts = parseKnownHosts(text);
  const usableLines = knownHosts.entries.length + knownHosts.ignoredCertAuthorityLines.length;
  if (usableLines === 0 && knownHosts.malformedLines.length > 0) {
    const lines = summariseLines(knownHosts.malformedLines);
    throw invalid(`parsing the known_hosts file: no valid entry (malformed lines: ${lines})`, path);
  }
  return knownHosts;
}

function summariseLines(lines: number[]): string {
  const shown = lines.slice(0, 5).join(', ');
  return lines.length > 5 ? `${shown} and ${lines.length - 5} more` : shown;
}

function invalid(message: string, file?: string, cause?: unknown): SshDialError {
  // The cause of a key parse error is our own PrivateKeyParseError, whose text is already in the
  // message; it never holds key bytes either.
  return new SshDialError({ code: 'SSH_CREDENTIALS_INVALID', stage: 'credentials', message, cause, ...(file !== undefined ? { file } : {}) });
}
