// Typed errors the control plane's services throw to the API, AppErrors (server/errors.ts) the
// API answers by code.
import type { FieldError } from "@/lib/proxy-spec";
import { AppError } from "@/server/errors";

export class ProxyNotFoundError extends AppError {
  readonly code = "ERR_PROXY_NOT_FOUND";
  constructor(readonly proxyName: string) {
    super(`no Proxy named ${JSON.stringify(proxyName)}`);
    this.name = "ProxyNotFoundError";
  }
}

/** Bad input; `fields` names each offending field. Nothing was changed. */
abstract class InvalidFieldsError extends AppError {
  constructor(
    readonly fields: FieldError[],
    what: string,
  ) {
    super(
      `${what}: ${fields.map((field) => (field.path ? `${field.path}: ${field.message}` : field.message)).join("; ")}`,
    );
    this.name = new.target.name;
  }
}

export class ProxyValidationError extends InvalidFieldsError {
  readonly code = "ERR_PROXY_INVALID";
  constructor(fields: FieldError[]) {
    super(fields, "invalid Proxy");
  }
}

/** The Proxy is being deleted; it cannot be changed any more. */
export class ProxyDeletingError extends AppError {
  readonly code = "ERR_PROXY_DELETING";
  constructor(readonly proxyName: string) {
    super(`Proxy ${JSON.stringify(proxyName)} is being deleted`);
    this.name = "ProxyDeletingError";
  }
}

/** GET /api/events: the session (or token) has as many open streams as allowed. */
export class TooManyStreamsError extends AppError {
  readonly code = "ERR_TOO_MANY_STREAMS";
  readonly retryAfterSeconds = 30;
  constructor(readonly limit: number) {
    super(
      `this session already has ${limit} open event streams; close a tab or wait for one to end`,
    );
    this.name = "TooManyStreamsError";
  }
}

export { ProxyExistsError } from "@/server/store/errors";

/** Input to the host wizard or a config save that cannot be used. */
export class HostSetupInputError extends InvalidFieldsError {
  readonly code = "ERR_INVALID_INPUT";
  constructor(fields: FieldError[]) {
    super(fields, "invalid input");
  }
}

/** A host that Proxies still use cannot be removed; the message names them. */
export class HostInUseError extends AppError {
  readonly code = "ERR_HOST_IN_USE";
  constructor(
    readonly host: string,
    readonly proxies: string[],
  ) {
    super(
      `host ${JSON.stringify(host)} still has Proxies: ${proxies.join(", ")}; delete them (or move them to another host) first`,
    );
    this.name = "HostInUseError";
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
      `host ${JSON.stringify(options.host)} still has Proxies: ${options.proxies.join(", ")}; changing its ${options.changes} would make their ` +
      "Delete look in the new place and leave their overlays and seeds behind in the old one; delete them (or move them to another host) first, or keep the old value";
    this.name = "HostStorageInUseError";
  }
}

/**
 * A host setup request this server will not carry out: UNSUPPORTED when its setup cannot (no
 * providers config file), CONFLICT when it contradicts what is there (a key file that exists, a
 * host key that changed since it was shown).
 */
export class HostSetupRefusedError extends AppError {
  constructor(
    readonly code: "ERR_UNSUPPORTED_OPERATION" | "ERR_HOST_SETUP_CONFLICT",
    message: string,
  ) {
    super(message);
    this.name = "HostSetupRefusedError";
  }
}
