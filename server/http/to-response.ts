// The one mapping from a thrown error to an HTTP answer `{error: {code, message, fields?}}`
// (lib/api/errors.ts). An AppError (server/errors.ts) carries its code and status; a provider
// error is recognised by the class found along its cause chain; never by message text. Anything
// else is a 500 (ERR_INTERNAL) whose body says nothing about the cause; the cause goes to the log
// (error messages never carry secrets; request bodies are not logged).
import type { ApiErrorBody, ApiErrorCode } from '@/lib/api/errors';
import { AppError } from '@/server/errors';
import type { FieldError } from '@/lib/proxy-spec';
import { errorClassOf, providerErrorCodes, type ProviderErrorClass } from '@/server/providers/errors';
import type { Logger } from '@/server/telemetry/logger';
import { errorMessage } from '@/lib/error-message';

// What the provider said, with the status that fits: a refusal no retry will change (422), a host
// that cannot be reached or answered transiently (503), a missing instance or volume (404), a
// pool without room (507 Insufficient Storage).
const statusByProviderClass: Record<ProviderErrorClass, number> = {
  permanent: 422,
  transient: 503,
  notFound: 404,
  quotaExceeded: 507,
};

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
  if (err instanceof AppError) return { code: err.code, status: err.status };
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
