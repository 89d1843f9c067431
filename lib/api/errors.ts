// The error body of every failed API request, `{error: {code, message, fields?}}`, and the codes
// it may carry. The browser switches on `code` (a 401 is ERR_INVALID_CREDENTIALS on the login
// form, ERR_UNAUTHENTICATED when a session is gone), never on message text or the status alone.
import { z } from 'zod';

/** Codes of the server's typed errors, each with one HTTP status (server/http/to-response.ts). */
export const apiErrorCodes = [
  'ERR_INVALID_INPUT',
  'ERR_PROXY_INVALID',
  'ERR_UNAUTHENTICATED',
  'ERR_INVALID_CREDENTIALS',
  'ERR_FOREIGN_ORIGIN',
  'ERR_INVALID_SETUP_CODE',
  'ERR_RESOURCE_NOT_FOUND',
  'ERR_PROXY_NOT_FOUND',
  'ERR_PROXYSET_NOT_FOUND',
  'ERR_TOKEN_NOT_FOUND',
  'ERR_HOST_NOT_FOUND',
  'ERR_IMAGE_NOT_FOUND',
  'ERR_PROXY_EXISTS',
  'ERR_PROXY_DELETING',
  'ERR_PROXYSET_EXISTS',
  /** a member of a ProxySet is deleted through its set (scale, replace, delete the set) */
  'ERR_PROXY_OWNED',
  'ERR_PASSWORD_ALREADY_SET',
  'ERR_PASSWORD_NOT_SET',
  'ERR_PASSWORD_FROM_ENVIRONMENT',
  'ERR_IMAGE_IN_USE',
  'ERR_IMAGE_BUSY',
  'ERR_CONSOLE_BUSY',
  'ERR_HOST_IN_USE',
  'ERR_HOST_SETUP_CONFLICT',
  'ERR_PAYLOAD_TOO_LARGE',
  'ERR_UNSUPPORTED_MEDIA_TYPE',
  'ERR_UNSUPPORTED_OPERATION',
  'ERR_TOO_MANY_ATTEMPTS',
  'ERR_TOO_MANY_STREAMS',
  'ERR_RESOURCE_UNAVAILABLE',
  'ERR_SETTINGS',
  'ERR_STORE_VERSION',
  'ERR_STORE_MIGRATION',
  // What a provider answered (server/providers/errors.ts), by its class.
  'ERR_PERMANENT',
  'ERR_TRANSIENT',
  'ERR_NOT_FOUND',
  'ERR_QUOTA_EXCEEDED',
  // Anything unexpected: the body says nothing more, the server's log does.
  'ERR_INTERNAL',
] as const;
export type ApiErrorCode = (typeof apiErrorCodes)[number];

export const fieldErrorSchema = z.strictObject({ path: z.string(), message: z.string() });

export const apiErrorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.enum(apiErrorCodes),
    message: z.string(),
    /** one entry per offending field, on 400 answers */
    fields: z.array(fieldErrorSchema).optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
