import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ssh2, { type ParsedKey } from 'ssh2';
import { afterEach, describe, expect, it } from 'vitest';
import { dialSsh, loadCredentials, SshDialError } from '@/server/ssh';
import { generateKey, generateOpenSshKeyPair, Resources, startDialScenario, writeFiles, type TestKey } from './ssh-harness';

const resources = new Resources();
afterEach(() => resources.cleanup());

const pem = (type: 'rsa' | 'ec' | 'ed25519', encoding: 'pkcs1' | 'sec1' | 'pkcs8'): string => {
  const pair =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : type === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('ed25519');
  return pair.privateKey.export({ type: encoding, format: 'pem' }).toString();
};

/** A TestKey for any private key text ssh2 (or our PKCS#8 conversion) reads. */
function asTestKey(privateText: string, publicBlob: Buffer, type: string): TestKey {
  const publicFields = `${type} ${publicBlob.toString('base64')}`;
  return { private: privateText, public: `${publicFields} test`, publicFields };
}

const formats = [
  { name: 'OpenSSH ed25519', text: () => generateOpenSshKeyPair('ed25519').private, type: 'ssh-ed25519' },
  { name: 'OpenSSH RSA', text: () => generateOpenSshKeyPair('rsa').private, type: 'ssh-rsa' },
  { name: 'OpenSSH ECDSA', text: () => generateOpenSshKeyPair('ecdsa').private, type: 'ecdsa-sha2-nistp256' },
  { name: 'PEM RSA (PKCS#1)', text: () => pem('rsa', 'pkcs1'), type: 'ssh-rsa' },
  { name: 'PEM ECDSA (SEC1)', text: () => pem('ec', 'sec1'), type: 'ecdsa-sha2-nistp256' },
  { name: 'PEM RSA (PKCS#8)', text: () => pem('rsa', 'pkcs8'), type: 'ssh-rsa' },
  { name: 'PEM ECDSA (PKCS#8)', text: () => pem('ec', 'pkcs8'), type: 'ecdsa-sha2-nistp256' },
  { name: 'PEM ed25519 (PKCS#8)', text: () => pem('ed25519', 'pkcs8'), type: 'ssh-ed25519' },
];

describe('reading credentials', () => {
  it.each(formats)('authenticates with a $name key', async ({ text, type }) => {
    const scenario = await startDialScenario(resources);
    const privateText = text();
    await writeFile(scenario.keyFile, privateText);
    const { privateKey } = await loadCredentials(scenario.dialOptions);
    expect(privateKey.type).toBe(type);

    const parsed = ssh2.utils.parseKey(privateKey.pem) as ParsedKey;
    const user = asTestKey(privateText, parsed.getPublicSSH(), type);
    if (privateText.includes('BEGIN PRIVATE KEY')) {
      // The converted key must be the same key, not merely a valid one.
      const original = createPublicKey(privateText).export({ format: 'der', type: 'spki' });
      const converted = createPublicKey(parsed.getPublicPEM()).export({ format: 'der', type: 'spki' });
      expect(converted.equals(original)).toBe(true);
    }
    scenario.clientKey.public = user.public;
    scenario.clientKey.publicFields = user.publicFields;

    const connection = await dialSsh(scenario.dialOptions);
    expect(connection.dead).toBeUndefined();
    connection.kill();
  });

  const invalidKeys = [
    { name: 'an OpenSSH .pub', text: () => generateKey().public },
    { name: 'a PEM public key', text: () => createPublicKey(pem('rsa', 'pkcs1')).export({ type: 'spki', format: 'pem' }).toString() },
    {
      name: 'a passphrase-protected key',
      text: () => ssh2.utils.generateKeyPairSync('ed25519', { passphrase: 'pw', cipher: 'aes256-cbc', rounds: 4 }).private,
    },
    { name: 'a known_hosts file', text: () => `beelink ${generateKey().publicFields}\n` },
    { name: 'random text', text: () => 'not a key at all\n' },
    { name: 'an empty file', text: () => '' },
  ];

  it.each(invalidKeys)('refuses $name in the key file permanently, naming the file by its role (the path is kept for the log)', async ({ text }) => {
    const dir = await resources.tempDir();
    const content = text();
    await writeFiles(dir, { id: content, known_hosts: '' });
    const keyFile = join(dir, 'id');

    const err = await loadCredentials({ keyFile, knownHostsFile: join(dir, 'known_hosts') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SshDialError);
    expect(err).toMatchObject({ code: 'SSH_CREDENTIALS_INVALID', stage: 'credentials', permanent: true });
    const message = (err as Error).message;
    expect(message).toMatch(/^parsing the ssh key file: /);
    expect(message).not.toContain(dir);
    expect(err).toMatchObject({ file: keyFile });
    for (const token of content.split(/\s+/).filter((t) => t.length > 16)) expect(message).not.toContain(token.slice(0, 16));
  });

  it('refuses a known_hosts file with content but no usable line, without quoting it', async () => {
    const dir = await resources.tempDir();
    const key = generateKey();
    await writeFiles(dir, { id: key.private, known_hosts: key.private });

    const err = await loadCredentials({ keyFile: join(dir, 'id'), knownHostsFile: join(dir, 'known_hosts') }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SSH_CREDENTIALS_INVALID', stage: 'credentials', permanent: true });
    expect((err as Error).message).toContain('parsing the known_hosts file: no valid entry');
    expect(err).toMatchObject({ file: join(dir, 'known_hosts') });
    expect((err as Error).message).not.toContain(key.private.split('\n')[1]!.slice(0, 16));
  });

  it('refuses a world-writable key file permanently, and reads one that group or others may only read', async () => {
    const dir = await resources.tempDir();
    await writeFiles(dir, { id: generateKey().private, known_hosts: '' });
    const files = { keyFile: join(dir, 'id'), knownHostsFile: join(dir, 'known_hosts') };
    chmodSync(files.keyFile, 0o666);
    const err = await loadCredentials(files).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SSH_CREDENTIALS_INVALID', stage: 'credentials', permanent: true, file: files.keyFile });
    expect((err as Error).message).toBe("the ssh key file is writable by every user (mode 0666); make it 0600, owned by the server's user");
    chmodSync(files.keyFile, 0o644);
    await expect(loadCredentials(files)).resolves.toMatchObject({ privateKey: { type: 'ssh-ed25519' } });
  });

  it('accepts an empty known_hosts file (every host is then unknown)', async () => {
    const dir = await resources.tempDir();
    await writeFiles(dir, { id: generateKey().private, known_hosts: '# nothing yet\n' });
    const credentials = await loadCredentials({ keyFile: join(dir, 'id'), knownHostsFile: join(dir, 'known_hosts') });
    expect(credentials.knownHosts?.entries).toEqual([]);
  });

  it('does not read known_hosts when host-key checking is off', async () => {
    const dir = await resources.tempDir();
    await writeFiles(dir, { id: generateKey().private });
    const credentials = await loadCredentials({ keyFile: join(dir, 'id'), knownHostsFile: join(dir, 'absent'), insecureIgnoreHostKey: true });
    expect(credentials.knownHosts).toBeUndefined();
  });

  it('needs a known_hosts file when host-key checking is on', async () => {
    const dir = await resources.tempDir();
    await writeFiles(dir, { id: generateKey().private });
    await expect(loadCredentials({ keyFile: join(dir, 'id') })).rejects.toMatchObject({ code: 'SSH_CREDENTIALS_INVALID', permanent: true });
  });

  it('reads the files again on every call', async () => {
    const dir = await resources.tempDir();
    const files = { keyFile: join(dir, 'id'), knownHostsFile: join(dir, 'known_hosts') };
    await writeFiles(dir, { id: generateKey().private, known_hosts: '' });
    const before = await loadCredentials(files);
    await writeFiles(dir, { id: generateKey('ecdsa').private, known_hosts: `beelink ${generateKey().publicFields}\n` });
    const after = await loadCredentials(files);

    expect([before.privateKey.type, after.privateKey.type]).toEqual(['ssh-ed25519', 'ecdsa-sha2-nistp256']);
    expect([before.knownHosts?.entries.length, after.knownHosts?.entries.length]).toEqual([0, 1]);
  });
});
