// Private key parsing: OpenSSH (`BEGIN OPENSSH PRIVATE KEY`) and PEM (PKCS#1 RSA, SEC1 EC, and
// PKCS#8 `BEGIN PRIVATE KEY` for RSA, ECDSA and ed25519). ssh2 reads the first two itself; PKCS#8
// (what `openssl genpkey` and `ssh-keygen -m PKCS8` write) is converted to a form ssh2 reads.
// Errors describe the problem, never the bytes.

import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import ssh2, { type ParsedKey } from 'ssh2';

export interface PrivateKey {
  /** Key text ssh2 accepts as `privateKey`. */
  pem: string;
  /** ssh key type, e.g. `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`. */
  type: string;
}

export class PrivateKeyParseError extends Error {}

const pkcs8Header = '-----BEGIN PRIVATE KEY-----';
const publicKeyPrefix = /^\s*(ssh-|ecdsa-|sk-|-----BEGIN (SSH2 |RSA )?PUBLIC KEY)/;

export function parsePrivateKey(text: string): PrivateKey {
  if (publicKeyPrefix.test(text)) {
    throw new PrivateKeyParseError('this is a public key; the private key is needed (not the .pub)');
  }
  if (text.includes('ENCRYPTED')) {
    throw new PrivateKeyParseError('the key is passphrase-protected; an unencrypted key is needed');
  }
  const pem = text.includes(pkcs8Header) ? pkcs8ToSsh2Readable(text) : text;
  const parsed: ParsedKey | ParsedKey[] | Error = ssh2.utils.parseKey(pem);
  if (parsed instanceof Error) throw new PrivateKeyParseError(parsed.message);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) throw new PrivateKeyParseError('no key in the file');
  if (!key.isPrivateKey()) {
    throw new PrivateKeyParseError('this is a public key; the private key is needed (not the .pub)');
  }
  return { pem, type: key.type };
}

// Converts by key type: RSA and EC have a traditional PEM form ssh2 reads; ed25519 has none, so
// it is re-wrapped in OpenSSH's own container.
const pkcs8Converters: Record<string, (key: KeyObject) => string> = {
  rsa: (key) => key.export({ type: 'pkcs1', format: 'pem' }).toString(),
  ec: (key) => key.export({ type: 'sec1', format: 'pem' }).toString(),
  ed25519: (key) => openSshEd25519(key),
};

function pkcs8ToSsh2Readable(text: string): string {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch {
    throw new PrivateKeyParseError('malformed PKCS#8 private key');
  }
  const convert = pkcs8Converters[key.asymmetricKeyType ?? ''];
  if (!convert) throw new PrivateKeyParseError(`unsupported PKCS#8 key type ${key.asymmetricKeyType ?? 'unknown'}`);
  return convert(key);
}

// openssh-key-v1 layout (OpenSSH PROTOCOL.key): magic, cipher "none", kdf "none", empty kdf
// options, one key: public blob, then the private section (check ints, type, public, seed||public,
// comment, padding to 8 bytes).
export function openSshEd25519(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d ?? '', 'base64url');
  const publicKey = Buffer.from(jwk.x ?? '', 'base64url');
  const type = Buffer.from('ssh-ed25519');
  const publicBlob = Buffer.concat([sshString(type), sshString(publicKey)]);
  const check = randomBytes(4);
  const section = Buffer.concat([check, check, sshString(type), sshString(publicKey), sshString(Buffer.concat([seed, publicKey])), sshString(Buffer.alloc(0))]);
  const padLength = (8 - (section.length % 8)) % 8;
  const padding = Buffer.from(Array.from({ length: padLength }, (_, i) => i + 1));
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString(Buffer.from('none')),
    sshString(Buffer.from('none')),
    sshString(Buffer.alloc(0)),
    uint32(1),
    sshString(publicBlob),
    sshString(Buffer.concat([section, padding])),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return ['-----BEGIN OPENSSH PRIVATE KEY-----', ...lines, '-----END OPENSSH PRIVATE KEY-----', ''].join('\n');
}

function sshString(data: Buffer): Buffer {
  return Buffer.concat([uint32(data.length), data]);
}

function uint32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}
