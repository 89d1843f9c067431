// The one mapping from a thrown error to an HTTP answer `{error: {code, message, fields?}}`
// (lib/api/errors.ts). Errors are recognised by their stable `code` (or, for provider errors, by
// the class found along the cause chain), never by message text. Anything unrecognised is a 500
// (ERR_INTERNAL) whose body says nothing about the cause; the cause goes to the log (error
// messages never carry secrets; request bodies are not logged).
import type { ApiErrorBody, ApiErrorCode } from '@/lib/api/errors';
import type { FieldError } from '@/lib/proxy-spec';
import { errorClassOf, providerErrorCodes, type ProviderErrorClass, type ProviderErrorCode } from '@/server/providers/errors';
import type { Logger } from '@/server/telemetry/logger';
import { errorMessage } from '@/lib/error-message';

type ServerErrorCode = Exclude<ApiErrorCode, ProviderErrorCode | 'ERR_INTERNAL'>;

// Every code the API may send has its status here (a compile error when lib/api/errors.ts grows).
const statusByCode: Record<ServerErrorCode, number> = {
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

// What the provider said, with the status that fits: a refusal no retry will change (422), a host
// that cannot be reached or answered transiently (503), a missing instance or volume (404), a
// pool without room (507 Insufficient Storage).
const statusByProviderClass: Record<ProviderErrorClass, number> = {
  permanent: 422,
  transient: 503,
  notFound: 404,
  quotaExceeded: 507,
};

function isServerCode(code: string | undefined): code is ServerErrorCode {
  return code !== undefined && Object.hasOwn(statusByCode, code);
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function fieldsOf(err: unknown): FieldError[] | undefined {
  const fields = (err as { fields?: unknown } | null)?.fields;
  if (!Array.isArray(fields)) return undefined;
  return fields.filter((field): field is FieldError => typeof (field as FieldError)?.path === 'string' && typeof (field as FieldError)?.message === 'string');
}

/** The code and status the answer carries; undefined for an error the API does not know. */
function classifyError(err: unknown): { code: Exclude<ApiErrorCode, 'ERR_INTERNAL'>; status: number } | undefined {
  const code = codeOf(err);
  if (isServerCode(code)) return { code, status: statusByCode[code] };
  const providerClass: ProviderErrorClass | undefined = errorClassOf(err);
  return providerClass === undefined ? undefined : { code: providerErrorCodes[providerClass], status: statusByProviderClass[providerClass] };
}

function headersOf(err: unknown): Record<string, string> {
  const retryAfter = (err as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  return typeof retryAfter === 'number' ? { 'retry-after': String(Math.max(1, Math.ceil(retryAfter))) } : {};
}

export const noStore = { 'cache-control': 'no-store' } as const;

/** The JSON answer for a failed request; unexpected errors go to `log` and nowhere else. */
export function toResponse(err: unknown, log: Logger): Response {
  const known = classifyError(err);
  if (known === undefined) {
    const name = err instanceof Error ? err.name : typeof err;
    const message = errorMessage(err);
    log.error({ errorName: name, errorCode: codeOf(err), error: message }, 'request failed with an unexpected error');
    const body: ApiErrorBody = { error: { code: 'ERR_INTERNAL', message: 'internal error' } };
    return Response.json(body, { status: 500, headers: noStore });
  }
  const fields = known.status === 400 ? fieldsOf(err) : undefined;
  const body: ApiErrorBody = {
    error: {
      code: known.code,
      message: errorMessage(err),
      ...(fields && fields.length > 0 ? { fields } : {}),
    },
  };
  return Response.json(body, { status: known.status, headers: { ...noStore, ...headersOf(err) } });
}
