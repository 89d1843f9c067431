// Typed errors of the HTTP layer: what a request itself got wrong (its body, its Origin, its
// credentials). Each is an AppError (server/errors.ts), with a stable `code` and its status; none
// carries request data beyond field paths, so nothing a client sent is echoed into logs.
import type { FieldError } from '@/lib/proxy-spec';
import { AppError, InvalidFieldsError } from '@/server/errors';

/** The input named by `fields` is malformed; nothing was changed. */
export class InvalidInputError extends InvalidFieldsError {
  readonly code = 'ERR_INVALID_INPUT';
  constructor(fields: FieldError[], options?: { cause?: unknown }) {
    super(fields, 'invalid input', options);
    this.name = 'InvalidInputError';
  }
}

export class UnauthenticatedError extends AppError {
  readonly code = 'ERR_UNAUTHENTICATED';
  constructor(message = 'log in first (or send an API token where one is accepted)') {
    super(message);
    this.name = 'UnauthenticatedError';
  }
}

/** A state-changing request from another site (CSRF): refused before anything else is read. */
export class ForeignOriginError extends AppError {
  readonly code = 'ERR_FOREIGN_ORIGIN';
  constructor(reason: string) {
    super(`cross-site request refused: ${reason}`);
    this.name = 'ForeignOriginError';
  }
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'ERR_PAYLOAD_TOO_LARGE';
  constructor(readonly limitBytes: number) {
    super(`request body is larger than ${limitBytes} bytes`);
    this.name = 'PayloadTooLargeError';
  }
}

export class UnsupportedMediaTypeError extends AppError {
  readonly code = 'ERR_UNSUPPORTED_MEDIA_TYPE';
  constructor() {
    super('request body must be JSON (Content-Type: application/json)');
    this.name = 'UnsupportedMediaTypeError';
  }
}
