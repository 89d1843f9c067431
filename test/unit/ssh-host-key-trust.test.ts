// The pieces of adding a host that OpenSSH's own tools must agree with: the SHA256 fingerprint of a
// scanned host key is what `ssh-keygen -lf` prints for the host's .pub file; the hashed known_hosts
// line we write is found by `ssh-keygen -F`; a generated identity is a key OpenSSH reads, with the
// fingerprint `ssh-keygen -lf` prints for its .pub.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendKnownHost, knownHostStanding, scanHostKey } from '@/server/ssh/host-key-scan';
import { authoriseCommand } from '@/lib/authorise-command';
import { generateKeyPair, publicIdentity } from '@/server/ssh/key-pair';
import { requireTool } from '@/test/support/system-tool';
import { generateKey, Resources, startTestSshServer } from './ssh-harness';

const resources = new Resources();
afterEach(() => resources.cleanup());

const sshKeygen = () => requireTool('ssh-keygen', 'openssh-client');
/** `256 SHA256:... comment (ED25519)` -> `SHA256:...` */
const keygenFingerprint = (pubFile: string) => execFileSync(sshKeygen(), ['-l', '-f', pubFile], { encoding: 'utf8' }).split(' ')[1];

describe('trusting a host key', () => {
  it('shows the fingerprint ssh-keygen -lf prints for the host key file, and writes it hashed where ssh-keygen -F finds it', async () => {
    const dir = await resources.tempDir();
    const hostKeyFile = join(dir, 'ssh_host_ed25519_key');
    execFileSync(sshKeygen(), ['-q', '-t', 'ed25519', '-N', '', '-C', 'host', '-f', hostKeyFile]);
    const hostKey = { private: readFileSync(hostKeyFile, 'utf8'), public: readFileSync(`${hostKeyFile}.pub`, 'utf8'), publicFields: '' };
    const server = await startTestSshServer(resources, { hostKey, authorizedKeys: () => [] });

    const scanned = await scanHostKey({ address: server.address });
    expect(scanned.keyType).toBe('ssh-ed25519');
    expect(scanned.fingerprint).toBe(keygenFingerprint(`${hostKeyFile}.pub`));

    const knownHosts = join(dir, 'known_hosts');
    expect(knownHostStanding('', scanned)).toEqual({ status: 'unknown' });
    await appendKnownHost(knownHosts, scanned);
    const text = readFileSync(knownHosts, 'utf8');
    expect(text).toMatch(/^\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+ ssh-ed25519 [A-Za-z0-9+/=]+\n$/);
    expect(text).not.toContain('127.0.0.1');
    expect(statSync(knownHosts).mode & 0o777).toBe(0o600);
    const found = execFileSync(sshKeygen(), ['-F', `[127.0.0.1]:${server.port}`, '-f', knownHosts], { encoding: 'utf8' });
    expect(found).toContain(`Host [127.0.0.1]:${server.port} found`);
    expect(knownHostStanding(text, scanned)).toEqual({ status: 'known' });
  });

  it('reports a different key of the same type as changed, with the fingerprint on file', async () => {
    const server = await startTestSshServer(resources, { hostKey: generateKey(), authorizedKeys: () => [] });
    const scanned = await scanHostKey({ address: server.address });
    const other = generateKey();
    const dir = await resources.tempDir();
    const otherPub = join(dir, 'other.pub');
    writeFileSync(otherPub, other.public);
    const standing = knownHostStanding(`# a comment\n[127.0.0.1]:${server.port} ${other.publicFields}\n`, scanned);
    expect(standing).toEqual({ status: 'changed', knownFingerprint: keygenFingerprint(otherPub), line: 2 });
  });

  it('fails with a typed error when nothing listens', async () => {
    await expect(scanHostKey({ address: '127.0.0.1:1', timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'SSH_TCP', stage: 'tcp' });
  });
});

describe("the server's SSH identity", () => {
  it('generates an ed25519 pair OpenSSH reads: private 0600, .pub beside it, fingerprint as ssh-keygen -lf prints', async () => {
    const dir = await resources.tempDir();
    const keyFile = join(dir, 'keys', 'id_ed25519');
    const identity = await generateKeyPair(keyFile);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${keyFile}.pub`, 'utf8')).toBe(`${identity.publicKey}\n`);
    expect(identity.fingerprint).toBe(keygenFingerprint(`${keyFile}.pub`));
    const derived = execFileSync(sshKeygen(), ['-y', '-f', keyFile], { encoding: 'utf8' }).trim();
    expect(identity.publicKey.startsWith(derived)).toBe(true);
    await expect(publicIdentity(keyFile)).resolves.toEqual(identity);
    await expect(generateKeyPair(keyFile)).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('reads the public half of a key ssh-keygen made', async () => {
    const dir = await resources.tempDir();
    const keyFile = join(dir, 'id_ed25519');
    execFileSync(sshKeygen(), ['-q', '-t', 'ed25519', '-N', '', '-C', 'x', '-f', keyFile]);
    const identity = await publicIdentity(keyFile);
    expect(identity.fingerprint).toBe(keygenFingerprint(`${keyFile}.pub`));
    expect(authoriseCommand(identity.publicKey, 'kvm2lab')).toBe(
      `sudo -u kvm2lab sh -c 'umask 077; mkdir -p ~/.ssh && echo "${identity.publicKey}" >> ~/.ssh/authorized_keys'`,
    );
  });
});
