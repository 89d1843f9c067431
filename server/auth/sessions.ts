// Admin sessions. The cookie carries `<id>.<signature>`: a random id and its HMAC under a secret
// kept in the store, so a forged or truncated cookie is refused without a lookup. The store keeps
// only the id's sha256 with the expiry, so a copy of the database opens no session, and logout or
// a password change ends sessions for real rather than waiting for the cookie to expire.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from 'better-sqlite3';

export { sessionCookieName } from './cookie-name';
export const defaultSessionTtlMs = 12 * 60 * 60 * 1000;

export interface IssuedSession {
  /** the cookie's value; shown to the browser once, never stored or logged */
  cookieValue: string;
  issuedAtMs: number;
  expiresAtMs: number;
}

const idHash = (id: string): string => createHash('sha256').update(id).digest('hex');

export class SessionStore {
  constructor(
    private readonly db: Database,
    private readonly signingKey: Buffer,
  ) {}

  private sign(id: string): string {
    return createHmac('sha256', this.signingKey).update(id).digest('base64url');
  }

  issue(options: { nowMs: number; ttlMs: number }): IssuedSession {
    const id = randomBytes(32).toString('base64url');
    const expiresAtMs = options.nowMs + options.ttlMs;
    this.db.prepare(`INSERT INTO sessions (id_hash, created_at, expires_at) VALUES (?, ?, ?)`).run(idHash(id), options.nowMs, expiresAtMs);
    return { cookieValue: `${id}.${this.sign(id)}`, issuedAtMs: options.nowMs, expiresAtMs };
  }

  /** The session id of a well-signed cookie, or undefined. */
  private idOf(cookieValue: string): string | undefined {
    const [id, signature, ...rest] = cookieValue.split('.');
    if (!id || !signature || rest.length > 0) return undefined;
    const expected = Buffer.from(this.sign(id));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
  }

  /** Whether the cookie names a live session at `nowMs`. */
  isValid(cookieValue: string, nowMs: number): boolean {
    const id = this.idOf(cookieValue);
    if (id === undefined) return false;
    const expiresAt = this.db.prepare(`SELECT expires_at FROM sessions WHERE id_hash = ?`).pluck().get(idHash(id)) as number | undefined;
    return expiresAt !== undefined && expiresAt > nowMs;
  }

  revoke(cookieValue: string): void {
    const id = this.idOf(cookieValue);
    if (id !== undefined) this.db.prepare(`DELETE FROM sessions WHERE id_hash = ?`).run(idHash(id));
  }

  revokeAll(): void {
    this.db.prepare(`DELETE FROM sessions`).run();
  }

  pruneExpired(nowMs: number): number {
    return this.db.prepare(`DELETE FROM sessions WHERE expires_at <= ?`).run(nowMs).changes;
  }
}
