// The one place the browser talks to the HTTP API: JSON in and out, errors as ApiError carrying the
// status and the per-field messages of a 400 (`{error, fields}`), and a 401 on any page sends the
// browser to the login page with the way back.

export type FieldMessages = Record<string, string>;

export class ApiError extends Error {
  readonly code = 'ERR_API';
  readonly status: number;
  /** field path (e.g. `placement.machineType`) → message, from a 400 answer */
  readonly fields: FieldMessages;

  constructor(options: { status: number; message: string; fields?: FieldMessages; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.name = 'ApiError';
    this.status = options.status;
    this.fields = options.fields ?? {};
  }
}

/** The API sends `fields` as a list of {path, message} or as a map; both read as a map here. */
export function readFieldMessages(fields: unknown): FieldMessages {
  if (Array.isArray(fields)) {
    const messages: FieldMessages = {};
    for (const entry of fields as Array<{ path?: unknown; message?: unknown }>) {
      const path = typeof entry.path === 'string' ? entry.path : '';
      if (typeof entry.message === 'string' && messages[path] === undefined) messages[path] = entry.message;
    }
    return messages;
  }
  if (fields && typeof fields === 'object') {
    return Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  }
  return {};
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
  const payload = (body && typeof body === 'object' ? body : {}) as { error?: unknown; fields?: unknown };
  const message = typeof payload.error === 'string' ? payload.error : `${response.status} ${response.statusText || 'request failed'}`;
  return new ApiError({ status: response.status, message, fields: readFieldMessages(payload.fields) });
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
  /** false for the auth routes themselves, where 401 is an answer, not a lost session */
  redirectOn401?: boolean;
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { method = 'GET', body, signal, redirectOn401 = true } = options;
  const response = await fetch(path, {
    method,
    signal,
    credentials: 'same-origin',
    cache: 'no-store',
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = await readBody(response);
  if (response.status === 401 && redirectOn401) sendToLogin();
  if (!response.ok) throw errorFrom(response, payload);
  return payload as T;
}

/** Query functions get the signal so a page change cancels what it no longer needs. */
export const getJson =
  <T>(path: string) =>
  ({ signal }: { signal: AbortSignal }): Promise<T> =>
    apiRequest<T>(path, { signal });

/** Retry network blips and 5xx, never a 4xx: asking again will not change the answer. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status < 500) return false;
  return failureCount < 2;
}
