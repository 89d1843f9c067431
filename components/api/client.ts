// The one place the browser talks to the HTTP API: JSON in and out, every answer parsed with its
// schema from the API contract (lib/api), errors as ApiError carrying the contract's `code`, the
// status and the per-field messages. A lost session (ERR_UNAUTHENTICATED) on any page sends the
// browser to the login page with the way back; a wrong password (ERR_INVALID_CREDENTIALS) does not.
import type { z } from 'zod';
import { apiErrorBodySchema, type ApiErrorCode } from '@/lib/api/errors';

export type FieldMessages = Record<string, string>;

/** A form's message as a whole after `err`: the server's one for no field (path ''), or the error's own when it named no field. */
export function formMessage(err: unknown, fields: FieldMessages): string | undefined {
  return fields[''] ?? (Object.keys(fields).length === 0 && err instanceof Error ? err.message : undefined);
}

/** The server's code, or ERR_BAD_RESPONSE when an answer does not match the contract. */
export type ClientErrorCode = ApiErrorCode | 'ERR_BAD_RESPONSE';

export class ApiError extends Error {
  readonly code: ClientErrorCode;
  readonly status: number;
  /** field path (e.g. `placement.machineType`) → message, from a 400 answer */
  readonly fields: FieldMessages;

  constructor(options: { code: ClientErrorCode; status: number; message: string; fields?: FieldMessages; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = options.code;
    this.status = options.status;
    this.fields = options.fields ?? {};
  }
}

/** Whether `err` is an ApiError with one of `codes`. */
export function hasCode(err: unknown, ...codes: ClientErrorCode[]): err is ApiError {
  return err instanceof ApiError && codes.includes(err.code);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorFrom(response: Response, body: unknown): ApiError {
  const parsed = apiErrorBodySchema.safeParse(body);
  if (!parsed.success) {
    return new ApiError({
      code: 'ERR_BAD_RESPONSE',
      status: response.status,
      message: `${response.status} ${response.statusText || 'request failed'}`,
      cause: parsed.error,
    });
  }
  const { code, message, fields = [] } = parsed.data.error;
  const messages: FieldMessages = {};
  for (const field of fields) messages[field.path] ??= field.message;
  return new ApiError({ code, status: response.status, message, fields: messages });
}

function sendToLogin(): void {
  if (typeof window === 'undefined' || window.location.pathname === '/login') return;
  const back = window.location.pathname + window.location.search;
  // A full page load: the login page starts from a clean slate, with no stale queries.
  window.location.assign(new URL(`/login?next=${encodeURIComponent(back)}`, window.location.origin));
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
}

/** The answer to `path`, parsed with `schema`; an error answer throws ApiError. */
export async function apiRequest<S extends z.ZodType>(path: string, schema: S, options: RequestOptions = {}): Promise<z.output<S>> {
  const { method = 'GET', body, signal } = options;
  const response = await fetch(path, {
    method,
    signal,
    credentials: 'same-origin',
    cache: 'no-store',
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = await readBody(response);
  if (!response.ok) {
    const error = errorFrom(response, payload);
    if (error.code === 'ERR_UNAUTHENTICATED') sendToLogin();
    throw error;
  }
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    throw new ApiError({
      code: 'ERR_BAD_RESPONSE',
      status: response.status,
      message: `${method} ${path}: the answer does not match the API contract`,
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/** Retry network blips and 5xx, never a 4xx or a contract mismatch: asking again will not change the answer. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && (error.status < 500 || error.code === 'ERR_BAD_RESPONSE')) return false;
  return failureCount < 2;
}
