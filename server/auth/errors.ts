// Typed errors of authentication, AppErrors (server/errors.ts). Messages never carry the password,
// a token or a cookie value.
import { AppError } from '@/server/errors';

/** Wrong password or unknown/revoked/expired credential. */
export class InvalidCredentialsError extends AppError {
  readonly code = 'ERR_INVALID_CREDENTIALS';
  constructor(message = 'wrong password') {
    super(message);
    this.name = 'InvalidCredentialsError';
  }
}

/** Too many failed logins from one client; it may try again after `retryAfterSeconds`. */
export class TooManyAttemptsError extends AppError {
  readonly code = 'ERR_TOO_MANY_ATTEMPTS';
  constructor(readonly retryAfterSeconds: number) {
    super(`too many failed login attempts; try again in ${retryAfterSeconds} s`);
    this.name = 'TooManyAttemptsError';
  }
}

/** First-start setup without the setup code from the server's log, or with a wrong one. */
export class InvalidSetupCodeError extends AppError {
  readonly code = 'ERR_INVALID_SETUP_CODE';
  constructor(reason: 'wrong' | 'expired' = 'wrong') {
    super(
      reason === 'expired'
        ? 'the setup code has expired (a code lasts an hour): the server printed a new one in its log just now (journalctl -u kvm2-proxies, or the terminal running it)'
        : 'the setup code is not right: the server prints it in its log at start (journalctl -u kvm2-proxies, or the terminal running it); a code lasts an hour, and a new one is printed after',
    );
    this.name = 'InvalidSetupCodeError';
  }
}

/** First-start setup is only possible while no admin password exists. */
export class PasswordAlreadySetError extends AppError {
  readonly code = 'ERR_PASSWORD_ALREADY_SET';
  constructor() {
    super('an admin password is already configured; log in, then change it under Settings');
    this.name = 'PasswordAlreadySetError';
  }
}

export class PasswordNotSetError extends AppError {
  readonly code = 'ERR_PASSWORD_NOT_SET';
  constructor() {
    super(
      "no admin password is configured yet: set one first (POST /api/auth/setup, with the setup code from the server's log) or start the server with ADMIN_PASSWORD",
    );
    this.name = 'PasswordNotSetError';
  }
}

/** ADMIN_PASSWORD owns the password: a change through the API would be undone at the next start. */
export class PasswordManagedByEnvironmentError extends AppError {
  readonly code = 'ERR_PASSWORD_FROM_ENVIRONMENT';
  constructor() {
    super('the admin password comes from the ADMIN_PASSWORD environment variable; change it there and restart');
    this.name = 'PasswordManagedByEnvironmentError';
  }
}

export class TokenNotFoundError extends AppError {
  readonly code = 'ERR_TOKEN_NOT_FOUND';
  /** `kind` names the list it was looked for in: `API token` or `gateway token`. */
  constructor(
    readonly tokenId: string,
    kind = 'API token',
  ) {
    super(`no ${kind} with id ${JSON.stringify(tokenId)}`);
    this.name = 'TokenNotFoundError';
  }
}
