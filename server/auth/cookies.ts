// The session cookie on the wire: read from `Cookie`, written as `Set-Cookie` with HttpOnly
// (no script reads it), SameSite=Strict (no other site's page sends it), Path=/, an expiry, and
// Secure whenever the browser came over HTTPS.
import { sessionCookieName } from './cookie-name';

/** The value of cookie `name` in a `Cookie` header, if present. */
export function readCookie(header: string | null, name: string = sessionCookieName): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sessionCookie(options: { value: string; expiresAtMs: number; nowMs: number; secure: boolean }): string {
  const maxAge = Math.max(0, Math.floor((options.expiresAtMs - options.nowMs) / 1000));
  return [
    `${sessionCookieName}=${options.value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAge}`,
    `Expires=${new Date(options.expiresAtMs).toUTCString()}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

/** Tells the browser to drop the cookie. */
export function clearedSessionCookie(options: { secure: boolean }): string {
  return [
    `${sessionCookieName}=`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    'Max-Age=0',
    'Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}
