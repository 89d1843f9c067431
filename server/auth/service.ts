// Who may use the API: the admin (password → session cookie) and API tokens (bearer, for the
// discovery API and metrics). The password is set once at first start (with the one-time setup
// code the server logs), or by ADMIN_PASSWORD on every start; either way only its scrypt hash is
// stored. Nothing here logs or returns a password, a token secret or a cookie value, except the
// new token and cookie to their owner (and the setup code to the server's own log).
import type { SqlExecutor } from '@/server/store/sql';
import type { Logger } from '@/server/telemetry/logger';
import { AdminStore, type PasswordSource } from './admin-store';
import {
  InvalidCredentialsError,
  InvalidSetupCodeError,
  PasswordAlreadySetError,
  PasswordManagedByEnvironmentError,
  PasswordNotSetError,
  TokenNotFoundError,
  TooManyAttemptsError,
} from './errors';
import { GatewayTokens } from './gateway-tokens';
import { defaultCost, hashPassword, type ScryptCost, verifyPassword } from './password';
import { defaultLoginLimits, type LoginAttempt, LoginRateLimiter, type LoginLimits } from './rate-limit';
import { newSetupCode, sameSetupCode } from './setup-code';
import { type StoredSetupCode, SetupCodeStore } from './setup-code-store';
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
  db: SqlExecutor;
  /** ADMIN_PASSWORD: when set, it is the admin password, applied by init() */
  adminPassword?: string;
  sessionTtlMs?: number;
  limits?: LoginLimits;
  now?: () => number;
  /** scrypt cost of new hashes (tests lower it) */
  cost?: ScryptCost;
  /** where the setup code is announced */
  logger?: Logger;
  /** how long a first-start setup code lasts before a new one is made and printed (default 1 h) */
  setupCodeTtlMs?: number;
}

export const defaultSetupCodeTtlMs = 60 * 60_000;

export interface PasswordChange {
  session: IssuedSession;
  /** API tokens revoked along with the sessions (0 unless asked for) */
  revokedTokens: number;
}

const sessionKeyName = 'session-signing-key';

export class AuthService {
  private readonly admin: AdminStore;
  private readonly sessions: SessionStore;
  private readonly tokens: TokenStore;
  /** the crawlers' gateway passwords: a kind apart, which tokenPrincipal never accepts */
  readonly gatewayTokens: GatewayTokens;
  private readonly limiter: LoginRateLimiter;
  private readonly now: () => number;
  private readonly setupCodes: SetupCodeStore;
  /** the setup code this replica last printed, so each code is printed once per replica */
  private announcedSetupCode: string | undefined;

  constructor(private readonly options: AuthServiceOptions) {
    this.now = options.now ?? Date.now;
    this.admin = new AdminStore(options.db);
    this.sessions = new SessionStore(options.db, () => this.admin.secret(sessionKeyName));
    this.tokens = new TokenStore(options.db);
    this.gatewayTokens = new GatewayTokens({ db: options.db, now: this.now });
    this.setupCodes = new SetupCodeStore(options.db);
    this.limiter = new LoginRateLimiter(options.limits ?? defaultLoginLimits, this.now);
  }

  private get cost(): ScryptCost {
    return this.options.cost ?? defaultCost;
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  /**
   * At start: applies ADMIN_PASSWORD (a different one replaces the stored hash and ends every
   * session); without it and without a stored password, makes the one-time setup code and logs it.
   */
  async init(): Promise<void> {
    const fromEnv = this.options.adminPassword;
    const stored = await this.admin.password();
    if (fromEnv !== undefined) {
      if (stored && (await verifyPassword(fromEnv, stored.hash))) return;
      await this.admin.replacePassword({ hash: await hashPassword(fromEnv, this.cost), source: 'environment', setAt: this.isoNow() });
      await this.sessions.revokeAll();
      this.options.logger?.info('admin password set from ADMIN_PASSWORD');
      return;
    }
    if (stored) return;
    await this.validSetupCode();
  }

  /**
   * The setup code that holds now, shared by every replica through the store; an expired one is
   * replaced. Each replica prints a code the first time it sees it, so the log of whichever
   * replica the admin reads has it.
   */
  private async validSetupCode(): Promise<StoredSetupCode> {
    const nowMs = this.now();
    const ttlMs = this.options.setupCodeTtlMs ?? defaultSetupCodeTtlMs;
    const valid = await this.setupCodes.valid({ nowMs, fresh: () => ({ code: newSetupCode(), expiresAtMs: nowMs + ttlMs }) });
    if (valid.code !== this.announcedSetupCode) {
      this.announcedSetupCode = valid.code;
      const until = new Date(valid.expiresAtMs).toISOString();
      this.options.logger?.warn(
        { setupCode: valid.code, validUntil: until },
        `first start: no admin password yet. Open the dashboard and enter this one-time setup code to choose it: ${valid.code} (valid until ${until}; a new one is printed after; or start the server with ADMIN_PASSWORD)`,
      );
    }
    return valid;
  }

  /** The setup code while first-start setup waits for one (the log shows it; tests read it here). */
  async pendingSetupCode(): Promise<string | undefined> {
    if (this.options.adminPassword !== undefined || (await this.admin.password())) return undefined;
    return (await this.validSetupCode()).code;
  }

  /** Anyone may ask; where the password came from is told only to the logged-in admin. */
  async status(sessionCookie: string | undefined): Promise<AuthStatus> {
    const stored = await this.admin.password();
    // The first-start form asks this: an expired code is replaced (and printed) before anyone types it.
    if (!stored && this.options.adminPassword === undefined) await this.validSetupCode();
    const authenticated = sessionCookie !== undefined && (await this.sessionValid(sessionCookie));
    return { passwordConfigured: stored !== undefined, authenticated, ...(stored && authenticated ? { passwordSource: stored.source } : {}) };
  }

  /**
   * First start: sets the password once, given the setup code from the server's log (so whoever
   * reaches a fresh install first does not become its admin); PasswordAlreadySetError afterwards.
   * Wrong codes count as failed attempts of `client`, like wrong passwords.
   */
  async setup(options: { password: string; setupCode: string; client: string }): Promise<void> {
    if (await this.admin.password()) throw new PasswordAlreadySetError();
    const attempt = this.reserveAttempt(options.client);
    const stored = await this.setupCodes.current();
    if (stored && this.now() >= stored.expiresAtMs && sameSetupCode(options.setupCode, stored.code)) {
      attempt.failed();
      await this.validSetupCode();
      throw new InvalidSetupCodeError('expired');
    }
    if (!stored || this.now() >= stored.expiresAtMs || !sameSetupCode(options.setupCode, stored.code)) {
      attempt.failed();
      if (this.options.adminPassword === undefined) await this.validSetupCode();
      throw new InvalidSetupCodeError();
    }
    attempt.succeeded();
    const hash = await hashPassword(options.password, this.cost);
    if (!(await this.admin.insertPassword({ hash, source: 'setup', setAt: this.isoNow() }))) throw new PasswordAlreadySetError();
    await this.setupCodes.remove();
  }

  async login(options: { password: string; client: string }): Promise<IssuedSession> {
    const stored = await this.admin.password();
    if (!stored) throw new PasswordNotSetError();
    await this.checkPassword({ password: options.password, hash: stored.hash, client: options.client, wrong: 'wrong password' });
    await this.sessions.pruneExpired(this.now());
    return this.sessions.issue({ nowMs: this.now(), ttlMs: this.options.sessionTtlMs ?? defaultSessionTtlMs });
  }

  /** Hashes `password` within a reserved attempt of `client`: 429 before hashing when it has none left. */
  private async checkPassword(options: { password: string; hash: string; client: string; wrong: string }): Promise<void> {
    const attempt = this.reserveAttempt(options.client);
    let matches = false;
    try {
      matches = await verifyPassword(options.password, options.hash);
    } finally {
      if (matches) attempt.succeeded();
      else attempt.failed();
    }
    if (!matches) throw new InvalidCredentialsError(options.wrong);
  }

  private reserveAttempt(client: string): LoginAttempt {
    const reservation = this.limiter.reserve(client);
    if ('retryAfterSeconds' in reservation) throw new TooManyAttemptsError(reservation.retryAfterSeconds);
    return reservation.attempt;
  }

  async logout(sessionCookie: string | undefined): Promise<void> {
    if (sessionCookie !== undefined) await this.sessions.revoke(sessionCookie);
  }

  /** Replaces the password, ends every session (and on request every API token) and opens a new session for the caller. */
  async changePassword(options: { currentPassword: string; newPassword: string; client: string; revokeTokens?: boolean }): Promise<PasswordChange> {
    if (this.options.adminPassword !== undefined) throw new PasswordManagedByEnvironmentError();
    const stored = await this.admin.password();
    if (!stored) throw new PasswordNotSetError();
    await this.checkPassword({ password: options.currentPassword, hash: stored.hash, client: options.client, wrong: 'the current password is wrong' });
    await this.admin.replacePassword({ hash: await hashPassword(options.newPassword, this.cost), source: 'change', setAt: this.isoNow() });
    await this.sessions.revokeAll();
    const revokedTokens = options.revokeTokens ? await this.tokens.revokeAll() : 0;
    return { session: await this.sessions.issue({ nowMs: this.now(), ttlMs: this.options.sessionTtlMs ?? defaultSessionTtlMs }), revokedTokens };
  }

  sessionValid(sessionCookie: string): Promise<boolean> {
    return this.sessions.isValid(sessionCookie, this.now());
  }

  /** The principal a bearer token stands for, or undefined for anything but a live token. */
  async tokenPrincipal(token: string): Promise<Principal | undefined> {
    const identity = await this.tokens.verify(token, this.now());
    return identity === undefined ? undefined : { kind: 'token', tokenId: identity.id };
  }

  createToken(name: string): Promise<CreatedApiToken> {
    return this.tokens.create({ name, nowMs: this.now() });
  }

  listTokens(): Promise<ApiTokenView[]> {
    return this.tokens.list();
  }

  async revokeToken(id: string): Promise<{ revoked: string }> {
    if (!(await this.tokens.revoke(id))) throw new TokenNotFoundError(id);
    return { revoked: id };
  }
}
