// Who may use the API: the admin (password → session cookie) and API tokens (bearer, for the
// discovery API and metrics). The password is set once at first start, or by ADMIN_PASSWORD on
// every start; either way only its scrypt hash is stored. Nothing here logs or returns a
// password, a token secret or a cookie value, except the new token and cookie to their owner.
import type { Database } from 'better-sqlite3';
import { AdminStore, type PasswordSource } from './admin-store';
import {
  InvalidCredentialsError,
  PasswordAlreadySetError,
  PasswordManagedByEnvironmentError,
  PasswordNotSetError,
  TokenNotFoundError,
  TooManyAttemptsError,
} from './errors';
import { defaultCost, hashPassword, type ScryptCost, verifyPassword } from './password';
import { defaultLoginLimits, LoginRateLimiter, type LoginLimits } from './rate-limit';
import { defaultSessionTtlMs, type IssuedSession, SessionStore } from './sessions';
import { type ApiTokenView, type CreatedApiToken, TokenStore } from './tokens';

/** Who made a request. */
export type Principal = { kind: 'session' } | { kind: 'token'; tokenId: string };

export interface AuthStatus {
  passwordConfigured: boolean;
  authenticated: boolean;
  /** where the password came from; only for the logged-in admin */
  passwordSource?: PasswordSource;
}

export interface AuthServiceOptions {
  db: Database;
  /** ADMIN_PASSWORD: when set, it is the admin password, applied by init() */
  adminPassword?: string;
  sessionTtlMs?: number;
  limits?: LoginLimits;
  now?: () => number;
  /** scrypt cost of new hashes (tests lower it) */
  cost?: ScryptCost;
}

const sessionKeyName = 'session-signing-key';

export class AuthService {
  private readonly admin: AdminStore;
  private readonly sessions: SessionStore;
  private readonly tokens: TokenStore;
  private readonly limiter: LoginRateLimiter;
  private readonly now: () => number;

  constructor(private readonly options: AuthServiceOptions) {
    this.now = options.now ?? Date.now;
    this.admin = new AdminStore(options.db);
    this.sessions = new SessionStore(options.db, this.admin.secret(sessionKeyName));
    this.tokens = new TokenStore(options.db);
    this.limiter = new LoginRateLimiter(options.limits ?? defaultLoginLimits, this.now);
  }

  private get cost(): ScryptCost {
    return this.options.cost ?? defaultCost;
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  /** Applies ADMIN_PASSWORD: a different one replaces the stored hash and ends every session. */
  async init(): Promise<void> {
    const fromEnv = this.options.adminPassword;
    if (fromEnv === undefined) return;
    const stored = this.admin.password();
    if (stored && (await verifyPassword(fromEnv, stored.hash))) return;
    this.admin.replacePassword({ hash: await hashPassword(fromEnv, this.cost), source: 'environment', setAt: this.isoNow() });
    this.sessions.revokeAll();
  }

  /** Anyone may ask; where the password came from is told only to the logged-in admin. */
  status(sessionCookie: string | undefined): AuthStatus {
    const stored = this.admin.password();
    const authenticated = sessionCookie !== undefined && this.sessionValid(sessionCookie);
    return { passwordConfigured: stored !== undefined, authenticated, ...(stored && authenticated ? { passwordSource: stored.source } : {}) };
  }

  /** First start: sets the password once; PasswordAlreadySetError afterwards. */
  async setup(password: string): Promise<void> {
    if (this.admin.password()) throw new PasswordAlreadySetError();
    const hash = await hashPassword(password, this.cost);
    if (!this.admin.insertPassword({ hash, source: 'setup', setAt: this.isoNow() })) throw new PasswordAlreadySetError();
  }

  async login(options: { password: string; client: string }): Promise<IssuedSession> {
    const retryAfter = this.limiter.retryAfterSeconds(options.client);
    if (retryAfter > 0) throw new TooManyAttemptsError(retryAfter);
    const stored = this.admin.password();
    if (!stored) throw new PasswordNotSetError();
    if (!(await verifyPassword(options.password, stored.hash))) {
      this.limiter.recordFailure(options.client);
      throw new InvalidCredentialsError();
    }
    this.limiter.recordSuccess(options.client);
    this.sessions.pruneExpired(this.now());
    return this.sessions.issue({ nowMs: this.now(), ttlMs: this.options.sessionTtlMs ?? defaultSessionTtlMs });
  }

  logout(sessionCookie: string | undefined): void {
    if (sessionCookie !== undefined) this.sessions.revoke(sessionCookie);
  }

  /** Replaces the password, ends every session and opens a new one for the caller. */
  async changePassword(options: { currentPassword: string; newPassword: string; client: string }): Promise<IssuedSession> {
    if (this.options.adminPassword !== undefined) throw new PasswordManagedByEnvironmentError();
    const retryAfter = this.limiter.retryAfterSeconds(options.client);
    if (retryAfter > 0) throw new TooManyAttemptsError(retryAfter);
    const stored = this.admin.password();
    if (!stored) throw new PasswordNotSetError();
    if (!(await verifyPassword(options.currentPassword, stored.hash))) {
      this.limiter.recordFailure(options.client);
      throw new InvalidCredentialsError('the current password is wrong');
    }
    this.admin.replacePassword({ hash: await hashPassword(options.newPassword, this.cost), source: 'change', setAt: this.isoNow() });
    this.sessions.revokeAll();
    return this.sessions.issue({ nowMs: this.now(), ttlMs: this.options.sessionTtlMs ?? defaultSessionTtlMs });
  }

  sessionValid(sessionCookie: string): boolean {
    return this.sessions.isValid(sessionCookie, this.now());
  }

  /** The principal a bearer token stands for, or undefined for anything but a live token. */
  tokenPrincipal(token: string): Principal | undefined {
    const tokenId = this.tokens.verify(token, this.now());
    return tokenId === undefined ? undefined : { kind: 'token', tokenId };
  }

  createToken(name: string): CreatedApiToken {
    return this.tokens.create({ name, nowMs: this.now() });
  }

  listTokens(): ApiTokenView[] {
    return this.tokens.list();
  }

  revokeToken(id: string): { revoked: string } {
    if (!this.tokens.revoke(id)) throw new TokenNotFoundError(id);
    return { revoked: id };
  }
}
