// Admin sessions. The cookie carries `<id>.<signature>`: a random id and its HMAC under a secret
// kept in the store, so a forged or truncated cookie is refused without a lookup. The store keeps
// only the id's sha256 with the expiry, so a copy of the database opens no session, and logout or
// a password change ends sessions for real rather than waiting for the cookie to expire.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SqlExecutor } from '@/server/store/sql';

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
  private signingKey: Promise<Buffer> | undefined;

  constructor(
    private readonly db: SqlExecutor,
    /** reads (or makes, on first use) the key shared by every replica; asked once */
    private readonly loadSigningKey: () => Promise<Buffer>,
  ) {}

  private async sign(id: string): Promise<string> {
    this.signingKey ??= this.loadSigningKey();
    return createHmac('sha256', await this.signingKey)
      .update(id)
      .digest('base64url');
  }

  async issue(options: { nowMs: number; ttlMs: number }): Promise<IssuedSession> {
    const id = randomBytes(32).toString('base64url');
    const expiresAtMs = options.nowMs + options.ttlMs;
    await this.db.run(`INSERT INTO sessions (id_hash, created_at, expires_at) VALUES (?, ?, ?)`, [idHash(id), options.nowMs, expiresAtMs]);
    return { cookieValue: `${id}.${await this.sign(id)}`, issuedAtMs: options.nowMs, expiresAtMs };
  }

  /** The session id of a well-signed cookie, or undefined. */
  private async idOf(cookieValue: string): Promise<string | undefined> {
    const [id, signature, ...rest] = cookieValue.split('.');
    if (!id || !signature || rest.length > 0) return undefined;
    const expected = Buffer.from(await this.sign(id));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
  }

  /** Whether the cookie names a live session at `nowMs`. */
  async isValid(cookieValue: string, nowMs: number): Promise<boolean> {
    const id = await this.idOf(cookieValue);
    if (id === undefined) return false;
    const row = await this.db.get<{ expires_at: number }>(`SELECT expires_at FROM sessions WHERE id_hash = ?`, [idHash(id)]);
    return row !== undefined && row.expires_at > nowMs;
  }

  async revoke(cookieValue: string): Promise<void> {
    const id = await this.idOf(cookieValue);
    if (id !== undefined) await this.db.run(`DELETE FROM sessions WHERE id_hash = ?`, [idHash(id)]);
  }

  async revokeAll(): Promise<void> {
    await this.db.run(`DELETE FROM sessions`);
  }

  async pruneExpired(nowMs: number): Promise<number> {
    return (await this.db.run(`DELETE FROM sessions WHERE expires_at <= ?`, [nowMs])).changes;
  }
}
