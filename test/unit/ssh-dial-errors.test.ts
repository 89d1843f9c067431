import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dialSsh, HostKeyError, SshDialError, type SshDialOptions } from '@/server/ssh';
import { closedPort, generateKey, hashedHostName, Resources, startDialScenario, type DialScenario } from './ssh-harness';

const resources = new Resources();
afterEach(() => resources.cleanup());

interface Case {
  name: string;
  /** Breaks the scenario; returns dial options to use. */
  arrange: (scenario: DialScenario) => Promise<SshDialOptions>;
  expected: { code: string; stage: string; permanent: boolean; reason?: string };
  /** Text the message must name (a path or a host). */
  names?: (scenario: DialScenario) => string;
  /** the credentials file at fault: in `file` (for the log), never in the message (it reaches API answers) */
  file?: (scenario: DialScenario) => string;
}

const cases: Case[] = [
  {
    name: 'a key the server does not accept is refused permanently',
    arrange: async (s) => {
      await writeFile(s.keyFile, generateKey().private);
      return s.dialOptions;
    },
    expected: { code: 'SSH_AUTH_FAILED', stage: 'ssh', permanent: true },
    names: (s) => `tester@${s.server.address}`,
  },
  {
    name: 'a host missing from known_hosts is an unknown host key',
    arrange: async (s) => {
      await writeFile(s.knownHostsFile, `[127.0.0.1]:1 ${s.hostKey.publicFields}\n`);
      return s.dialOptions;
    },
    expected: { code: 'SSH_HOST_KEY_UNKNOWN', stage: 'ssh', permanent: true, reason: 'unknown' },
    names: (s) => `[127.0.0.1]:${s.server.port}`,
    file: (s) => s.knownHostsFile,
  },
  {
    name: 'a host listed with another key of the same type is a changed host key',
    arrange: async (s) => {
      await writeFile(s.knownHostsFile, `${hashedHostName(`[127.0.0.1]:${s.server.port}`)} ${generateKey().publicFields}\n`);
      return s.dialOptions;
    },
    expected: { code: 'SSH_HOST_KEY_CHANGED', stage: 'ssh', permanent: true, reason: 'changed' },
    names: () => 'of the known_hosts file: the host key has changed',
    file: (s) => s.knownHostsFile,
  },
  {
    name: 'a revoked host key fails even though another line accepts it',
    arrange: async (s) => {
      const accepted = await readFile(s.knownHostsFile, 'utf8');
      await writeFile(s.knownHostsFile, `${accepted}@revoked * ${s.hostKey.publicFields}\n`);
      return s.dialOptions;
    },
    expected: { code: 'SSH_HOST_KEY_REVOKED', stage: 'ssh', permanent: true, reason: 'revoked' },
    file: (s) => s.knownHostsFile,
  },
  {
    name: 'a missing key file is a transient credentials error',
    arrange: async (s) => {
      await rm(s.keyFile);
      return s.dialOptions;
    },
    expected: { code: 'SSH_CREDENTIALS_MISSING', stage: 'credentials', permanent: false },
    names: () => 'reading the ssh key file: ENOENT',
    file: (s) => s.keyFile,
  },
  {
    name: 'a missing known_hosts file is a transient credentials error',
    arrange: async (s) => {
      await rm(s.knownHostsFile);
      return s.dialOptions;
    },
    expected: { code: 'SSH_CREDENTIALS_MISSING', stage: 'credentials', permanent: false },
    names: () => 'reading the known_hosts file: ENOENT',
    file: (s) => s.knownHostsFile,
  },
  {
    name: 'the .pub in place of the private key is a permanent credentials error naming the file by its role',
    arrange: async (s) => {
      await writeFile(s.keyFile, s.clientKey.public);
      return s.dialOptions;
    },
    expected: { code: 'SSH_CREDENTIALS_INVALID', stage: 'credentials', permanent: true },
    names: () => 'parsing the ssh key file: ',
    file: (s) => s.keyFile,
  },
  {
    name: 'a refused TCP connection is a transient tcp error',
    arrange: async (s) => ({ ...s.dialOptions, address: `127.0.0.1:${await closedPort()}` }),
    expected: { code: 'SSH_TCP', stage: 'tcp', permanent: false },
  },
  {
    name: 'an address that cannot be dialled is permanent',
    arrange: async (s) => ({ ...s.dialOptions, address: '127.0.0.1:99999' }),
    expected: { code: 'SSH_INVALID_ADDRESS', stage: 'tcp', permanent: true },
  },
];

describe('dial failures are typed, staged and classed', () => {
  it.each(cases)('$name', async ({ arrange, expected, names, file }) => {
    const scenario = await startDialScenario(resources);
    const options = await arrange(scenario);

    const err = await dialSsh(options).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(err).toBeInstanceOf(SshDialError);
    expect(err).toMatchObject(expected);
    if (expected.reason) expect(err).toBeInstanceOf(HostKeyError);
    const message = (err as Error).message;
    if (names) expect(message).toContain(names(scenario));
    expect((err as SshDialError).file).toBe(file?.(scenario));
    for (const path of [scenario.keyFile, scenario.knownHostsFile]) expect(message).not.toContain(path);
    for (const secret of secretsOf(scenario)) expect(message).not.toContain(secret);
  });

  it('does not leave the server connection open after a refused key', async () => {
    const scenario = await startDialScenario(resources);
    await writeFile(scenario.keyFile, generateKey().private);
    await expect(dialSsh(scenario.dialOptions)).rejects.toMatchObject({ code: 'SSH_AUTH_FAILED' });
    const serverSide = scenario.server.sockets[0]!;
    if (!serverSide.closed) await new Promise((resolve) => serverSide.once('close', resolve));
    expect(serverSide.closed).toBe(true);
  });

  it('skips host-key verification when insecureIgnoreHostKey is on', async () => {
    const scenario = await startDialScenario(resources);
    await writeFile(scenario.knownHostsFile, '');
    const connection = await dialSsh({ ...scenario.dialOptions, knownHostsFile: join(scenario.dir, 'absent'), insecureIgnoreHostKey: true });
    expect(connection.dead).toBeUndefined();
    connection.kill();
  });
});

/** Base64 bodies of every key in the scenario: none may appear in an error message. */
function secretsOf(scenario: DialScenario): string[] {
  const bodies = [scenario.clientKey.private, scenario.clientKey.public, scenario.hostKey.publicFields]
    .flatMap((text) => text.split(/\s+/))
    .filter((token) => token.length > 40);
  return bodies.map((token) => token.slice(0, 40));
}
