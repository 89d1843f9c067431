// Typed errors the control plane's services throw to the API, AppErrors (server/errors.ts) the
// API answers by code.
import type { FieldError } from '@/lib/proxy-spec';
import { AppError, InvalidFieldsError, NamedNotFoundError } from '@/server/errors';

export class ProxyNotFoundError extends NamedNotFoundError {
  readonly code = 'ERR_PROXY_NOT_FOUND';
  constructor(readonly proxyName: string) {
    super('Proxy', proxyName);
    this.name = 'ProxyNotFoundError';
  }
}

/** Bad input; `fields` names each offending field. Nothing was changed. */
export class ProxyValidationError extends InvalidFieldsError {
  readonly code = 'ERR_PROXY_INVALID';
  constructor(fields: FieldError[]) {
    super(fields, 'invalid Proxy');
    this.name = 'ProxyValidationError';
  }
}

/** `<kind> "<name>" is being deleted`: a Proxy or a set that cannot be changed any more; the subclass names the kind. */
export abstract class BeingDeletedError extends AppError {
  readonly code = 'ERR_PROXY_DELETING';
  constructor(kind: string, name: string) {
    super(`${kind} ${JSON.stringify(name)} is being deleted`);
  }
}

/** The Proxy is being deleted; it cannot be changed any more. */
export class ProxyDeletingError extends BeingDeletedError {
  constructor(readonly proxyName: string) {
    super('Proxy', proxyName);
    this.name = 'ProxyDeletingError';
  }
}

/** GET /api/events: the session (or token) has as many open streams as allowed. */
export class TooManyStreamsError extends AppError {
  readonly code = 'ERR_TOO_MANY_STREAMS';
  readonly retryAfterSeconds = 30;
  constructor(readonly limit: number) {
    super(`this session already has ${limit} open event streams; close a tab or wait for one to end`);
    this.name = 'TooManyStreamsError';
  }
}

export { ProxyExistsError } from '@/server/store/errors';
