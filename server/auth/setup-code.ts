// The one-time setup code of a fresh install: printed in the server's log at start, asked for by
// the first-start form, so only someone who can read the server's log chooses the admin password.
// 15 characters from an alphabet without look-alikes (75 bits), in groups of five for reading aloud.
import { randomInt, timingSafeEqual } from 'node:crypto';

const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const groups = 3;
const groupLength = 5;

export function newSetupCode(): string {
  return Array.from({ length: groups }, () => Array.from({ length: groupLength }, () => alphabet[randomInt(alphabet.length)]).join('')).join('-');
}

/** Case, spaces and dashes do not matter, so a code copied from a log line with its quotes trimmed still matches. */
const normalised = (code: string): Buffer => Buffer.from(code.toUpperCase().replace(/[\s-]/g, ''));

export function sameSetupCode(given: string, expected: string): boolean {
  const a = normalised(given);
  const b = normalised(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
