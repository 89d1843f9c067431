// Typed errors of adding, editing and removing hosts (the Add host wizard and the config saves):
// AppErrors (server/errors.ts) the API answers by code, with the same codes and messages as when
// they lived in the control plane.
import type { FieldError } from '@/lib/proxy-spec';
import { AppError, InvalidFieldsError } from '@/server/errors';

/** Input to the host wizard or a config save that cannot be used; `fields` names each one. Nothing was changed. */
export class HostSetupInputError extends InvalidFieldsError {
  readonly code = 'ERR_INVALID_INPUT';
  constructor(fields: FieldError[]) {
    super(fields, 'invalid input');
    this.name = 'HostSetupInputError';
  }
}

/** A host that Proxies still use cannot be removed; the message names them. */
export class HostInUseError extends AppError {
  readonly code = 'ERR_HOST_IN_USE';
  constructor(
    readonly host: string,
    readonly proxies: string[],
  ) {
    super(`host ${JSON.stringify(host)} still has Proxies: ${proxies.join(', ')}; delete them (or move them to another host) first`);
    this.name = 'HostInUseError';
  }
}

/**
 * A host whose pool or socket would change while Proxies use it: their Delete would look in the
 * new place and leave their overlays and seeds in the old one. The message names the Proxies.
 */
export class HostStorageInUseError extends HostInUseError {
  readonly changes: string;
  constructor(options: { host: string; proxies: string[]; changes: string }) {
    super(options.host, options.proxies);
    this.changes = options.changes;
    this.message =
      `host ${JSON.stringify(options.host)} still has Proxies: ${options.proxies.join(', ')}; changing its ${options.changes} would make their ` +
      'Delete look in the new place and leave their overlays and seeds behind in the old one; delete them (or move them to another host) first, or keep the old value';
    this.name = 'HostStorageInUseError';
  }
}

/**
 * A host setup request this server will not carry out: UNSUPPORTED when its setup cannot (no
 * providers config file), CONFLICT when it contradicts what is there (a key file that exists, a
 * host key that changed since it was shown).
 */
export class HostSetupRefusedError extends AppError {
  constructor(
    readonly code: 'ERR_UNSUPPORTED_OPERATION' | 'ERR_HOST_SETUP_CONFLICT',
    message: string,
  ) {
    super(message);
    this.name = 'HostSetupRefusedError';
  }
}
