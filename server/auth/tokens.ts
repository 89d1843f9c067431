// Bearer tokens, stored hashed, of two kinds that share this code and nothing else: API tokens for
// crawler clients and scrapers (discovery and metrics, `kvm2p_`, table api_tokens) and gateway
// tokens, the crawlers' proxy password (`kvm2g_`, table gateway_tokens, gateway-tokens.ts). Each
// kind has its own prefix and its own table, so a token of one kind never verifies as the other.
// A token reads `<prefix><id>_<secret>`: the id finds the row, the secret is 32 random bytes
// stored only as its sha256 (a hash that cannot be brute-forced at that entropy, so no slow KDF is
// needed) and compared in constant time. The whole token is returned once, by create; lists show
// the id, the name and the non-secret prefix.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SqlExecutor } from '@/server/store/sql';

/** Where a kind of token lives and how its tokens begin. */
export interface TokenKind {
  table: 'api_tokens' | 'gateway_tokens';
  prefix: string;
}

export const apiTokenKind: TokenKind = { table: 'api_tokens', prefix: 'kvm2p_' };

/** A token as listed: never the secret. */
export interface ApiTokenView {
  id: string;
  name: string;
  /** `<prefix><id>` (`kvm2p_<id>`), the part of the token that tells tokens apart */
  prefix: string;
  createdAt: string;
  lastUsedAt?: string;
}

export interface CreatedApiToken extends ApiTokenView {
  /** the whole token; this is the only time it is shown */
  token: string;
}

interface TokenRow {
  id: string;
  name: string;
  secret_hash: string;
  created_at: number;
  last_used_at: number | null;
}

/** Who a verified token is. */
export interface TokenIdentity {
  id: string;
  name: string;
}

const secretHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');
/** The id and the secret of a token; the prefix is matched apart, as a plain string. */
const tokenBodyPattern = /^([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
/** last_used_at is written at most this often per token, so scrapers do not turn reads into writes. */
const touchIntervalMs = 60_000;

export class TokenStore {
  private readonly table: TokenKind['table'];
  private readonly prefix: string;

  constructor(
    private readonly db: SqlExecutor,
    kind: TokenKind = apiTokenKind,
  ) {
    this.table = kind.table;
    this.prefix = kind.prefix;
  }

  private toView(row: TokenRow): ApiTokenView {
    return {
      id: row.id,
      name: row.name,
      prefix: `${this.prefix}${row.id}`,
      createdAt: new Date(row.created_at).toISOString(),
      ...(row.last_used_at !== null ? { lastUsedAt: new Date(row.last_used_at).toISOString() } : {}),
    };
  }

  async create(options: { name: string; nowMs: number }): Promise<CreatedApiToken> {
    const id = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    await this.db.run(`INSERT INTO ${this.table} (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)`, [
      id,
      options.name,
      secretHash(secret),
      options.nowMs,
    ]);
    const row = (await this.db.get<TokenRow>(`SELECT * FROM ${this.table} WHERE id = ?`, [id])) as TokenRow;
    return { ...this.toView(row), token: `${this.prefix}${id}_${secret}` };
  }

  async list(): Promise<ApiTokenView[]> {
    return (await this.db.all<TokenRow>(`SELECT * FROM ${this.table} ORDER BY created_at, id`)).map((row) => this.toView(row));
  }

  /** false when no such token exists. */
  async revoke(id: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM ${this.table} WHERE id = ?`, [id])).changes === 1;
  }

  /** Revokes every token; returns how many there were. */
  async revokeAll(): Promise<number> {
    return (await this.db.run(`DELETE FROM ${this.table}`)).changes;
  }

  /** The token's id and name when `token` is a live token of this kind, else undefined. */
  async verify(token: string, nowMs: number): Promise<TokenIdentity | undefined> {
    if (!token.startsWith(this.prefix)) return undefined;
    const match = tokenBodyPattern.exec(token.slice(this.prefix.length));
    if (!match) return undefined;
    const [, id, secret] = match as unknown as [string, string, string];
    const row = await this.db.get<TokenRow>(`SELECT * FROM ${this.table} WHERE id = ?`, [id]);
    if (!row) return undefined;
    const expected = Buffer.from(row.secret_hash, 'hex');
    const given = Buffer.from(secretHash(secret), 'hex');
    if (!timingSafeEqual(given, expected)) return undefined;
    if (row.last_used_at === null || nowMs - row.last_used_at >= touchIntervalMs) {
      await this.db.run(`UPDATE ${this.table} SET last_used_at = ? WHERE id = ?`, [nowMs, id]);
    }
    return { id: row.id, name: row.name };
  }
}
