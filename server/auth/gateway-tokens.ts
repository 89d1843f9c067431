// Gateway tokens (issue 24): the password a crawler puts in its proxy URL,
// `http://<selector>:<gateway token>@dashboard:8888`. A kind of its own: created and revoked in
// Settings, stored hashed like API tokens (tokens.ts does both kinds), but in their own table with
// their own prefix, so a gateway token never calls the admin API and an API token never opens the
// gateway. The gateway calls verify() on every new connection.
import type { SqlExecutor } from '@/server/store/sql';
import { TokenNotFoundError } from './errors';
import { type ApiTokenView, type CreatedApiToken, type TokenIdentity, type TokenKind, TokenStore } from './tokens';

export const gatewayTokenKind: TokenKind = { table: 'gateway_tokens', prefix: 'kvm2g_' };

export type { TokenIdentity as GatewayTokenIdentity };

export class GatewayTokens {
  private readonly store: TokenStore;
  private readonly now: () => number;

  constructor(options: { db: SqlExecutor; now?: () => number }) {
    this.store = new TokenStore(options.db, gatewayTokenKind);
    this.now = options.now ?? Date.now;
  }

  /** The answer's `token` is the only time the whole token is shown. */
  create(name: string): Promise<CreatedApiToken> {
    return this.store.create({ name, nowMs: this.now() });
  }

  /** Never the secrets: id, name, prefix, dates. */
  list(): Promise<ApiTokenView[]> {
    return this.store.list();
  }

  async revoke(id: string): Promise<{ revoked: string }> {
    if (!(await this.store.revoke(id))) throw new TokenNotFoundError(id, 'gateway token');
    return { revoked: id };
  }

  /**
   * Who `token` is when it is a live gateway token, else undefined (an API token, a revoked or
   * malformed one). The secret's hash is compared in constant time; last_used_at is written at most
   * once a minute per token, so a busy crawler's connections do not each write to the store.
   */
  verify(token: string): Promise<TokenIdentity | undefined> {
    return this.store.verify(token, this.now());
  }
}
