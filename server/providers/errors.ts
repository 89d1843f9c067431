// The four error classes of the provider contract. The reconciler switches on them: permanent
// latches the Proxy as Failed until its spec changes, quota waits, not-found (from Get) recreates,
// transient retries with backoff. Each class has a stable `code`; the original error stays
// reachable as `cause`. Callers use `errorClassOf`, never the message text.
import { errorMessage } from '@/lib/error-message';
import { isInstanceAcrossCopies } from '@/server/errors';

export type ProviderErrorClass = 'permanent' | 'transient' | 'notFound' | 'quotaExceeded';

export const providerErrorCodes = {
  permanent: 'ERR_PERMANENT',
  transient: 'ERR_TRANSIENT',
  notFound: 'ERR_NOT_FOUND',
  quotaExceeded: 'ERR_QUOTA_EXCEEDED',
} as const satisfies Record<ProviderErrorClass, string>;

export type ProviderErrorCode = (typeof providerErrorCodes)[ProviderErrorClass];

// The runtime's bundle (where providers throw) and each route's (where toResponse maps) have their
// own copy of this module: a registered symbol lets `instanceof ProviderError` hold across copies.
const providerErrorMark = Symbol.for('kvm2-proxies.ProviderError');

export abstract class ProviderError extends Error {
  abstract readonly errorClass: ProviderErrorClass;

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isInstanceAcrossCopies({ cls: this, base: ProviderError, mark: providerErrorMark, value });
  }

  get [providerErrorMark](): true {
    return true;
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  get code(): ProviderErrorCode {
    return providerErrorCodes[this.errorClass];
  }
}

/** Retrying cannot help until someone changes the spec, the config or the host. */
export class ErrPermanent extends ProviderError {
  readonly errorClass = 'permanent' as const;
}

/** Anything that may go away on its own: network, timeouts, a Secret not yet mounted. */
export class ErrTransient extends ProviderError {
  readonly errorClass = 'transient' as const;
}

/** The instance does not exist (never returned by Create). */
export class ErrNotFound extends ProviderError {
  readonly errorClass = 'notFound' as const;
}

/** Not enough room for the instance right now; the reconciler waits rather than fails. */
export class ErrQuotaExceeded extends ProviderError {
  readonly errorClass = 'quotaExceeded' as const;
}

type ProviderErrorConstructor = new (message: string, options?: { cause?: unknown }) => ProviderError;

const constructorByClass: Record<ProviderErrorClass, ProviderErrorConstructor> = {
  permanent: ErrPermanent,
  transient: ErrTransient,
  notFound: ErrNotFound,
  quotaExceeded: ErrQuotaExceeded,
};

/** Builds an error of the given class. */
export function providerError(errorClass: ProviderErrorClass, message: string, options?: { cause?: unknown }): ProviderError {
  return new constructorByClass[errorClass](message, options);
}

/**
 * Tags `err` with a class: the result is an error of that class whose message is `message`
 * (the original message when omitted) and whose cause is `err`. An error already of that class
 * is returned as it is when no new message is given.
 */
export function tagError(errorClass: ProviderErrorClass, err: unknown, message?: string): ProviderError {
  if (message === undefined && err instanceof ProviderError && err.errorClass === errorClass) return err;
  const text = message ?? errorMessage(err);
  return providerError(errorClass, text, { cause: err });
}

/**
 * The class an error carries: its own when it is a ProviderError, else the first one found along
 * its `cause` chain, else undefined (an unclassified error).
 */
export function errorClassOf(err: unknown): ProviderErrorClass | undefined {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current instanceof Error && !seen.has(current)) {
    if (current instanceof ProviderError) return current.errorClass;
    seen.add(current);
    current = current.cause;
  }
  return undefined;
}

export const isPermanent = (err: unknown): boolean => errorClassOf(err) === 'permanent';
export const isTransient = (err: unknown): boolean => errorClassOf(err) === 'transient';
export const isNotFound = (err: unknown): boolean => errorClassOf(err) === 'notFound';
export const isQuotaExceeded = (err: unknown): boolean => errorClassOf(err) === 'quotaExceeded';
