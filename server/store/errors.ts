// Typed errors of the store layer, AppErrors (server/errors.ts): the API answers them by class and
// code, never by message.
import { AppError } from '@/server/errors';

/** A record's name is taken; the message is `a <kind> named "<name>" already exists` and the subclass sets the code. */
abstract class NameTakenError extends AppError {
  constructor(kind: string, name: string, options?: { cause?: unknown }) {
    super(`a ${kind} named ${JSON.stringify(name)} already exists`, options);
  }
}

export class ProxyExistsError extends NameTakenError {
  readonly code = 'ERR_PROXY_EXISTS';
  constructor(
    readonly proxyName: string,
    options?: { cause?: unknown },
  ) {
    super('Proxy', proxyName, options);
    this.name = 'ProxyExistsError';
  }
}

export class StoreVersionError extends AppError {
  readonly code = 'ERR_STORE_VERSION';
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`the database is at schema version ${found}, newer than this server knows (${known}); refusing to open it`);
    this.name = 'StoreVersionError';
  }
}

export class StoreMigrationError extends AppError {
  readonly code = 'ERR_STORE_MIGRATION';
  readonly version: number;
  readonly migrationName: string;

  constructor(options: { version: number; migrationName: string; cause: unknown }) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`migration ${options.version} (${options.migrationName}) failed and was rolled back: ${reason}`, { cause: options.cause });
    this.version = options.version;
    this.migrationName = options.migrationName;
    this.name = 'StoreMigrationError';
  }
}

export class ProxySetExistsError extends NameTakenError {
  readonly code = 'ERR_PROXYSET_EXISTS';
  constructor(
    readonly setName: string,
    options?: { cause?: unknown },
  ) {
    super('ProxySet', setName, options);
    this.name = 'ProxySetExistsError';
  }
}
