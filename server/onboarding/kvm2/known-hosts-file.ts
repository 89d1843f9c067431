// The files the Add host wizard touches on the server. Step 1 appends to a provider entry's
// known_hosts file, so that file must not be one the server depends on for something else: the
// providers config, an SSH private key or its .pub (compared by device and inode too, so a hard
// link or a symlink to one is caught), nor an existing file that is not known_hosts, nor a
// symbolic link (the read and the append open it without following one). Key and known_hosts
// files that others may write work, but the step's answer warns: whoever can write the key can
// swap it, whoever can write known_hosts can pose as any host.
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseKnownHosts } from '@/server/ssh/known-hosts';
import { octalMode } from '@/server/ssh/key-file-mode';

/** What a file the known_hosts file must not be is, in an error message. */
interface Protected {
  path: string;
  what: string;
}

/** A reason the known_hosts file is refused; the caller names the field it came from. */
export class KnownHostsFileProblem extends Error {}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

/** The files the known_hosts file must not be: the providers config, every private key and its .pub. */
export function protectedFiles(options: { configPath: string | undefined; sshKeyFiles: readonly string[] }): Protected[] {
  return [
    ...(options.configPath ? [{ path: options.configPath, what: 'the providers config' }] : []),
    ...options.sshKeyFiles.flatMap((key) => [
      { path: key, what: 'an SSH private key (sshKeyFile)' },
      { path: `${key}.pub`, what: 'the public half of an SSH key (sshKeyFile)' },
    ]),
  ];
}

/** Throws KnownHostsFileProblem when `knownHostsFile` is, by name or by inode, one of `protect`. */
export async function refuseProtectedKnownHosts(knownHostsFile: string, protect: readonly Protected[]): Promise<void> {
  const target = resolve(knownHostsFile);
  const byName = protect.find((file) => resolve(file.path) === target);
  if (byName) throw new KnownHostsFileProblem(`is ${byName.what}: name a known_hosts file of its own`);
  const targetStat = await statOrUndefined(target);
  if (!targetStat) return;
  for (const file of protect) {
    const other = await statOrUndefined(file.path);
    if (other && other.dev === targetStat.dev && other.ino === targetStat.ino) {
      throw new KnownHostsFileProblem(`is ${file.what} (the same file under another name): name a known_hosts file of its own`);
    }
  }
}

function openProblem(err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return new KnownHostsFileProblem('is a symbolic link: name the file itself (the wizard never follows a link it would write through)');
  return err as Error;
}

/**
 * The known_hosts file's text ('' when it does not exist yet), read without following a symlink;
 * KnownHostsFileProblem when it is not a regular file or a line is not a known_hosts line.
 */
export async function readKnownHostsFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw openProblem(err);
  }
  try {
    if (!(await handle.stat()).isFile()) throw new KnownHostsFileProblem('is not a regular file');
    const text = await handle.readFile('utf8');
    const [bad] = parseKnownHosts(text).malformedLines;
    if (bad !== undefined) {
      throw new KnownHostsFileProblem(
        `line ${bad} is not a known_hosts line, so this is not a known_hosts file: name another file, or fix that line (ssh-keygen -F and -R read the file)`,
      );
    }
    return text;
  } finally {
    await handle.close();
  }
}

/** Appends `line` (created 0600 when missing), never through a symlink. */
export async function appendKnownHostsLine(path: string, line: string): Promise<void> {
  const current = await readKnownHostsFile(path);
  const separator = current === '' || current.endsWith('\n') ? '' : '\n';
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    throw openProblem(err);
  }
  try {
    await handle.writeFile(separator + line);
  } finally {
    await handle.close();
  }
}

const labels = { sshKeyFile: 'the SSH key file (sshKeyFile)', knownHostsFile: 'the known_hosts file (knownHostsFile)' } as const;
const risks = {
  sshKeyFile: 'whoever can write it can swap in a key of their own',
  knownHostsFile: 'whoever can write it can add a host key and pose as any host',
} as const;

/** A sentence per key or known_hosts file its group or everyone may write; names fields, never paths. */
export async function writableByOthersWarnings(files: { sshKeyFile: string; knownHostsFile: string | undefined }): Promise<string[]> {
  const warnings: string[] = [];
  for (const field of ['sshKeyFile', 'knownHostsFile'] as const) {
    const path = files[field];
    const found = path ? await statOrUndefined(path) : undefined;
    if (!found || (found.mode & 0o022) === 0) continue;
    const who = found.mode & 0o002 ? 'everyone' : 'its group';
    warnings.push(`${labels[field]} is writable by ${who} (mode ${octalMode(found.mode)}): ${risks[field]}. Run chmod 600 on it.`);
  }
  return warnings;
}
