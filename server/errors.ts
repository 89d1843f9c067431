// The base of every error the API answers with its own code (lib/api/errors.ts), as undici has
// UndiciError: auth, HTTP, control, store and provider-inventory errors extend AppError, which
// carries the code and the HTTP status; toResponse recognises it with `instanceof`. Also the
// generic resource errors the services throw (not found, unavailable, unsupported), here rather
// than in server/http so that a service never imports the HTTP layer. It imports no server
// module at run time, so any layer may use it.
import type { ApiErrorCode } from '@/lib/api/errors';
import type { FieldError } from '@/lib/proxy-spec';
import type { ProviderErrorCode } from '@/server/providers/errors';

/** The codes of AppErrors: all the contract's but the provider classes' and ERR_INTERNAL. */
export type AppErrorCode = Exclude<ApiErrorCode, ProviderErrorCode | 'ERR_INTERNAL'>;

// Every code the API may send has its status here (a compile error when lib/api/errors.ts grows).
const statusByCode: Record<AppErrorCode, number> = {
  ERR_INVALID_INPUT: 400,
  ERR_PROXY_INVALID: 400,
  ERR_UNAUTHENTICATED: 401,
  ERR_INVALID_CREDENTIALS: 401,
  ERR_FOREIGN_ORIGIN: 403,
  ERR_INVALID_SETUP_CODE: 403,
  ERR_RESOURCE_NOT_FOUND: 404,
  ERR_PROXY_NOT_FOUND: 404,
  ERR_PROXYSET_NOT_FOUND: 404,
  ERR_TOKEN_NOT_FOUND: 404,
  ERR_HOST_NOT_FOUND: 404,
  ERR_IMAGE_NOT_FOUND: 404,
  ERR_PROXY_EXISTS: 409,
  ERR_PROXY_DELETING: 409,
  ERR_PROXYSET_EXISTS: 409,
  ERR_PROXY_OWNED: 409,
  ERR_PASSWORD_ALREADY_SET: 409,
  ERR_PASSWORD_NOT_SET: 409,
  ERR_PASSWORD_FROM_ENVIRONMENT: 409,
  ERR_IMAGE_IN_USE: 409,
  ERR_IMAGE_BUSY: 409,
  ERR_CONSOLE_BUSY: 409,
  ERR_HOST_IN_USE: 409,
  ERR_HOST_SETUP_CONFLICT: 409,
  ERR_PAYLOAD_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_UNSUPPORTED_OPERATION: 422,
  ERR_TOO_MANY_ATTEMPTS: 429,
  ERR_TOO_MANY_STREAMS: 429,
  ERR_RESOURCE_UNAVAILABLE: 503,
  // The server itself cannot serve yet: bad settings in the environment, a store it cannot open.
  ERR_SETTINGS: 503,
  ERR_STORE_VERSION: 503,
  ERR_STORE_MIGRATION: 503,
};

// Next bundles the runtime (started by instrumentation) apart from each route, each with its own
// copy of this module, so a plain class check would fail for an error crossing from one copy to
// another. The mark is a registered symbol, the same in every copy (undici does this for its copies).
const appErrorMark = Symbol.for('kvm2-proxies.AppError');

/**
 * `instanceof` for a base class that may exist in several bundle copies: the base (`cls === base`)
 * recognises an instance of any copy by `mark`, a registered symbol its instances answer true to;
 * a subclass is checked as usual. ProviderError uses it too.
 */
export function isInstanceAcrossCopies(options: { cls: object; base: object; mark: symbol; value: unknown }): boolean {
  const { cls, base, mark, value } = options;
  if (cls !== base) return Function.prototype[Symbol.hasInstance].call(cls, value);
  return typeof value === 'object' && value !== null && (value as { [key: symbol]: unknown })[mark] === true;
}

export abstract class AppError extends Error {
  abstract readonly code: AppErrorCode;

  /** `instanceof AppError` holds for an AppError from any copy; a subclass is checked as usual. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isInstanceAcrossCopies({ cls: this, base: AppError, mark: appErrorMark, value });
  }

  get [appErrorMark](): true {
    return true;
  }

  /** the HTTP status the API answers this error with */
  get status(): number {
    return statusByCode[this.code];
  }
}

/** Bad input; `fields` names each offending field, and the message lists them after `what`. Nothing was changed. */
export abstract class InvalidFieldsError extends AppError {
  constructor(
    readonly fields: FieldError[],
    what: string,
    options?: ErrorOptions,
  ) {
    super(`${what}: ${fields.map((field) => (field.path ? `${field.path}: ${field.message}` : field.message)).join('; ')}`, options);
  }
}

/** A resource looked up by name does not exist; the message is `no <kind> named "<name>"` and the subclass sets the code. */
export abstract class NamedNotFoundError extends AppError {
  constructor(kind: string, name: string) {
    super(`no ${kind} named ${JSON.stringify(name)}`);
  }
}

/** A resource the API serves (provider, host, token, image) does not exist. */
export class ResourceNotFoundError extends NamedNotFoundError {
  readonly code = 'ERR_RESOURCE_NOT_FOUND';
  constructor(
    readonly resource: string,
    readonly resourceName: string,
  ) {
    super(resource, resourceName);
    this.name = 'ResourceNotFoundError';
  }
}

/** The resource exists but cannot serve this request in its current state (e.g. not running). */
export class ResourceUnavailableError extends AppError {
  readonly code = 'ERR_RESOURCE_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'ResourceUnavailableError';
  }
}

/** The request is well-formed but asks for something this resource does not offer. */
export class UnsupportedOperationError extends AppError {
  readonly code = 'ERR_UNSUPPORTED_OPERATION';
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedOperationError';
  }
}
