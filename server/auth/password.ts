// The admin password at rest: scrypt with a random salt, stored as
// `scrypt$<N>$<r>$<p>$<salt>$<hash>` (base64url), compared in constant time. The parameters
// travel with the hash, so raising them later still verifies passwords set before.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** About 32 MiB and tens of milliseconds per hash: slow to guess offline, fine for a login. */
export const defaultCost: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };

const keyLength = 32;
const saltLength = 16;

function scrypt(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 16 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, cost: ScryptCost = defaultCost): Promise<string> {
  const salt = randomBytes(saltLength);
  const key = await scrypt(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const encodedPattern = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** Whether `password` matches `encoded`; a malformed stored hash matches nothing. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const match = encodedPattern.exec(encoded);
  if (!match) return false;
  const [, n, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  if (expected.length !== keyLength) return false;
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}
