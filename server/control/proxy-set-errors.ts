// Typed errors of the ProxySet service, AppErrors (server/errors.ts) the API answers by code.
import type { FieldError } from '@/lib/proxy-spec';
import { AppError, InvalidFieldsError, NamedNotFoundError } from '@/server/errors';
import { BeingDeletedError } from './errors';

export class ProxySetNotFoundError extends NamedNotFoundError {
  readonly code = 'ERR_PROXYSET_NOT_FOUND';
  constructor(readonly setName: string) {
    super('ProxySet', setName);
    this.name = 'ProxySetNotFoundError';
  }
}

/** Bad input; `fields` names each offending field. Nothing was changed. */
export class ProxySetValidationError extends InvalidFieldsError {
  readonly code = 'ERR_INVALID_INPUT';
  constructor(fields: FieldError[]) {
    super(fields, 'invalid ProxySet');
    this.name = 'ProxySetValidationError';
  }
}

/** A member of a set is changed or deleted through its set, never on its own. */
export class ProxyOwnedError extends AppError {
  readonly code = 'ERR_PROXY_OWNED';
  constructor(
    readonly proxyName: string,
    readonly setName: string,
    what: 'deleted' | 'edited',
  ) {
    const how =
      what === 'deleted'
        ? `scale the set down, replace the member (POST /api/proxysets/${setName}/replace) or delete the set`
        : `edit the set's template (PUT /api/proxysets/${setName}): every member follows it`;
    super(`Proxy ${JSON.stringify(proxyName)} belongs to ProxySet ${JSON.stringify(setName)} and cannot be ${what} on its own: ${how}`);
    this.name = 'ProxyOwnedError';
  }
}

/** The set is being deleted; it cannot be changed any more. */
export class ProxySetDeletingError extends BeingDeletedError {
  constructor(readonly setName: string) {
    super('ProxySet', setName);
    this.name = 'ProxySetDeletingError';
  }
}
