// Reading what a request carries: a JSON body within a size limit, route params and the query
// string, each parsed with a zod schema into InvalidInputError naming every offending field.
import type { z } from 'zod';
import { fieldErrors } from '@/lib/proxy-spec';
import { InvalidInputError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors';

/** Default body limit: a Proxy with 64 KiB of cloud-init, JSON-escaped, fits several times over. */
export const defaultBodyLimitBytes = 512 * 1024;

/** `schema`'s output for `input`, or InvalidInputError with one entry per bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new InvalidInputError(fieldErrors(parsed.error), { cause: parsed.error });
  return parsed.data;
}

function isJsonContentType(value: string | null): boolean {
  if (value === null) return false;
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json' || (type?.startsWith('application/') === true && type.endsWith('+json'));
}

/** The body's bytes, refusing (without reading on) once it passes `limitBytes`. */
async function readLimited(request: Request, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limitBytes) throw new PayloadTooLargeError(limitBytes);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw new PayloadTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The JSON body. Requiring the JSON content type also keeps out HTML form posts, which a
 * foreign page can send without a CORS preflight.
 */
export async function readJson(request: Request, limitBytes = defaultBodyLimitBytes): Promise<unknown> {
  if (!isJsonContentType(request.headers.get('content-type'))) throw new UnsupportedMediaTypeError();
  const bytes = await readLimited(request, limitBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    throw new InvalidInputError([{ path: '', message: 'body is not valid UTF-8' }], { cause: err });
  }
  if (text.trim() === '') throw new InvalidInputError([{ path: '', message: 'body is empty; send a JSON object' }]);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // The parser's message quotes the body (which may hold cloud-init): keep neither it nor the error.
    throw new InvalidInputError([{ path: '', message: 'body is not valid JSON' }]);
  }
}

/** The query string as an object: a repeated key becomes an array, so a schema can refuse it. */
export function queryObject(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return query;
}
