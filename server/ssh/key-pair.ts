// The server's own SSH identity: an ed25519 key pair made when the configured key file does not
// exist yet (private key 0600 in OpenSSH's format, public key beside it as `<file>.pub`), and the
// public half of whatever key is configured, for the admin to authorise on a host. Key bytes are
// never logged or put in an error message; only the public key leaves this module.
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import ssh2 from 'ssh2';
import { keyFingerprint } from './known-hosts';
import { openSshEd25519, parsePrivateKey } from './private-key';

export interface PublicIdentity {
  /** `ssh-ed25519 AAAA... comment`, one authorized_keys line */
  publicKey: string;
  keyType: string;
  fingerprint: string;
}

export const identityComment = 'kvm2-proxies';

function identityOf(blob: Buffer, keyType: string): PublicIdentity {
  return { publicKey: `${keyType} ${blob.toString('base64')} ${identityComment}`, keyType, fingerprint: keyFingerprint(blob) };
}

/** Creates the key pair; fails with EEXIST rather than replace a key that is there. */
export async function generateKeyPair(keyFile: string): Promise<PublicIdentity> {
  await mkdir(dirname(keyFile), { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = openSshEd25519(privateKey);
  await writeFile(keyFile, pem, { mode: 0o600, flag: 'wx' });
  const identity = await publicIdentity(keyFile);
  await writeFile(`${keyFile}.pub`, `${identity.publicKey}\n`, { mode: 0o644 });
  return identity;
}

/** The public half of the private key in `keyFile` (whatever format parsePrivateKey reads). */
export async function publicIdentity(keyFile: string): Promise<PublicIdentity> {
  const { pem, type } = parsePrivateKey(await readFile(keyFile, 'utf8'));
  const parsed = ssh2.utils.parseKey(pem);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) throw new Error('the ssh key file does not parse');
  return identityOf(key.getPublicSSH(), type);
}
