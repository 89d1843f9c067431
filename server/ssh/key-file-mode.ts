// What OpenSSH checks before using a private key file: one that others can read is a leaked key
// waiting to happen (OpenSSH refuses it; we warn, so a restrictive deployment is not broken by an
// upgrade), one that anyone can write lets anyone swap in their own key (refused).
export type KeyFileModeProblem = 'world-writable' | 'readable-by-others';

export function keyFileModeProblem(mode: number): KeyFileModeProblem | undefined {
  if (mode & 0o002) return 'world-writable';
  if (mode & 0o044) return 'readable-by-others';
  return undefined;
}

export const octalMode = (mode: number): string => `0${(mode & 0o777).toString(8)}`;
