// The HTTP side of the image cache: open a cloud image URL as a stream of known length, hash it
// while it flows, and classify what the mirror answered. Nothing is buffered.
//
// The body never throws at its consumer. A source that fails part way (mirror reset, our own
// deadline) ends the stream early and keeps the error for `sourceError()`: the upload that reads
// the stream then finishes short, and the caller's length and digest checks report the failure.
// Handing a failing reader to the upload would tear the RPC stream down mid-flight instead.
//
// Redirects (mirror redirectors, release assets) are followed for HEAD and GET alike, at most
// `maxRedirects` times, never from https to http and only where redirect-guard.ts allows (by the
// address connected to); a loop, a longer chain or a refused hop is permanent. The final response
// is judged as any other. Every URL in a message goes through redactUrl.
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { ErrPermanent, ErrTransient } from '@/server/providers/errors';
import { redactUrl } from '@/server/telemetry/redact-url';
import { RedirectRefusedError, redirectGuard, type RedirectGuardSeams } from './redirect-guard';
import { errorMessage } from '@/lib/error-message';

export interface ImageStream {
  url: string;
  contentLength: number;
  /** Ends cleanly on any source error; see `sourceError`. */
  body: AsyncIterable<Uint8Array>;
  sourceError(): unknown;
  bytesRead(): number;
  /** Hex sha256 of the bytes read so far. */
  sha256(): string;
  /** Stops the download (closes the connection to the mirror). */
  abort(reason?: unknown): void;
}

export interface OpenImageOptions {
  signal?: AbortSignal;
  /** The download's own deadline: a stalled mirror ends through its body, not a killed socket. */
  deadlineMs: number;
  onBytes?: (bytes: number) => void;
  /** name resolution and trusted CAs (tests) */
  network?: RedirectGuardSeams;
}

// identity: a transparently gzipped body would hide the length the volume is declared with.
const requestHeaders = { 'accept-encoding': 'identity', 'user-agent': 'kvm2-proxies' };

export async function openImageStream(url: string, options: OpenImageOptions): Promise<ImageStream> {
  const controller = new AbortController();
  const deadline = setTimeout(
    () => controller.abort(new ErrTransient(`image download from ${redactUrl(url)} ran out of its ${options.deadlineMs} ms deadline`)),
    options.deadlineMs,
  );
  const onCallerAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const cleanup = () => {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onCallerAbort);
  };
  if (options.signal?.aborted) onCallerAbort();

  let response: Response;
  try {
    response = await requestFollowing(url, { method: 'GET', signal: controller.signal, network: options.network });
  } catch (err) {
    cleanup();
    if (err instanceof ErrPermanent) throw err;
    throw new ErrTransient(`fetching image ${redactUrl(url)}: ${errorMessage(err)}`, { cause: controller.signal.reason ?? err });
  }

  let contentLength: number;
  try {
    contentLength = lengthOf(response.url, response.statusCode, response.headers);
  } catch (err) {
    cleanup();
    discard(response.body);
    throw err;
  }

  const hash = createHash('sha256');
  let read = 0;
  let failure: unknown;
  const source = response.body;
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        hash.update(chunk);
        read += chunk.length;
        options.onBytes?.(chunk.length);
        yield chunk;
      }
    } catch (err) {
      failure = controller.signal.reason ?? err;
    } finally {
      cleanup();
      discard(source);
    }
  }

  return {
    url,
    contentLength,
    body: body(),
    sourceError: () => failure,
    bytesRead: () => read,
    sha256: () => hash.copy().digest('hex'),
    abort: (reason) => controller.abort(reason),
  };
}

/**
 * The image's size for the pool-space precheck: HEAD first; mirrors refuse HEAD with 405, 403 or
 * 501 alike, so any non-2xx HEAD falls back to a GET whose body is closed at once, and the GET's
 * status is then what counts.
 */
export async function imageContentLength(url: string, options: { signal?: AbortSignal; timeoutMs: number; network?: RedirectGuardSeams }): Promise<number> {
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]) : AbortSignal.timeout(options.timeoutMs);
  try {
    const head = await requestFollowing(url, { method: 'HEAD', signal, network: options.network });
    await head.body.dump();
    if (head.statusCode >= 200 && head.statusCode < 300) return lengthOf(head.url, head.statusCode, head.headers);
    const get = await requestFollowing(url, { method: 'GET', signal, network: options.network });
    discard(get.body);
    return lengthOf(get.url, get.statusCode, get.headers);
  } catch (err) {
    if (err instanceof ErrPermanent || err instanceof ErrTransient) throw err;
    throw new ErrTransient(`asking ${redactUrl(url)} for the image size: ${errorMessage(err)}`, { cause: err });
  }
}

/** Redirects followed before the chain is refused (curl's and Go's limit is of the same order). */
export const maxRedirects = 10;

const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

type Response = Awaited<ReturnType<typeof request>> & {
  /** the URL that answered, after any redirects */
  url: string;
};

/**
 * `method` on `url`, following redirects where redirect-guard.ts allows. A chain longer than
 * maxRedirects, a loop, a Location that is not http(s) or is missing, https to http, a hop to an
 * address the guard refuses: permanent, naming the chain. Network errors are thrown as undici
 * threw them. Each chain has a dispatcher of its own (its lookup judges the chain's hops), closed
 * once the final body is done.
 */
async function requestFollowing(url: string, options: { method: 'GET' | 'HEAD'; signal: AbortSignal; network?: RedirectGuardSeams }): Promise<Response> {
  const guard = redirectGuard(options.network);
  const chain = [url];
  const described = () => chain.map(redactUrl).join(' -> ');
  try {
    for (;;) {
      const current = chain[chain.length - 1] as string;
      let response: Awaited<ReturnType<typeof request>>;
      try {
        guard.before(new URL(current), chain.length - 1);
        response = await request(current, { method: options.method, headers: requestHeaders, signal: options.signal, dispatcher: guard.dispatcher });
      } catch (err) {
        const refusal = refusalIn(err);
        if (!refusal) throw err;
        throw new ErrPermanent(
          `image URL ${described()} was refused: ${refusal.message} (a redirect may lead to a loopback address only from a loopback image URL, to a private one only from a private or loopback URL, to a link-local or unspecified one never); point the catalogue at the image's final URL`,
          { cause: refusal },
        );
      }
      if (!redirectStatuses.has(response.statusCode)) return Object.assign(response, { url: current });
      discard(response.body);
      const location = response.headers.location;
      const next = typeof location === 'string' ? resolveLocation(location, current) : undefined;
      if (next === undefined) {
        throw new ErrPermanent(`image URL ${described()} answered HTTP ${response.statusCode} without a usable http(s) Location`);
      }
      if (new URL(current).protocol === 'https:' && new URL(next).protocol === 'http:') {
        throw new ErrPermanent(
          `image URL ${described()} redirects from https to http (${redactUrl(next)}): refused, a redirect may not drop TLS; point the catalogue at the image's final https URL`,
        );
      }
      if (chain.includes(next)) throw new ErrPermanent(`image URL redirects in a loop: ${described()} -> ${redactUrl(next)}`);
      chain.push(next);
      if (chain.length > maxRedirects + 1) {
        throw new ErrPermanent(`image URL redirected more than ${maxRedirects} times: ${described()}`);
      }
    }
  } finally {
    // Graceful: the final response's body still flows; the dispatcher closes once it is done.
    guard.close();
  }
}

/** The guard's refusal, as thrown or as the cause undici wrapped it in. */
function refusalIn(err: unknown): RedirectRefusedError | undefined {
  const seen = new Set<unknown>();
  for (let current = err; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    if (current instanceof RedirectRefusedError) return current;
  }
  return undefined;
}

/** A Location header (absolute or relative to `base`) as an http(s) URL, or undefined. */
function resolveLocation(location: string, base: string): string | undefined {
  try {
    const resolved = new URL(location, base);
    return resolved.protocol === 'http:' || resolved.protocol === 'https:' ? resolved.toString() : undefined;
  } catch {
    return undefined;
  }
}

type Headers = Record<string, string | string[] | undefined>;

/** 4xx is permanent, 429 and 5xx transient; a 2xx must carry a non-zero Content-Length. */
function lengthOf(rawUrl: string, status: number, headers: Headers): number {
  const url = redactUrl(rawUrl);
  if (status === 429 || status >= 500) throw new ErrTransient(`image URL ${url} answered HTTP ${status}; will retry`);
  if (status >= 400) throw new ErrPermanent(`image URL ${url} answered HTTP ${status}`);
  if (status < 200 || status >= 300) throw new ErrTransient(`image URL ${url} answered HTTP ${status}`);
  const header = headers['content-length'];
  const length = typeof header === 'string' ? Number(header) : NaN;
  if (!Number.isSafeInteger(length) || length <= 0) {
    throw new ErrPermanent(
      `image URL ${url} sent no usable Content-Length (${header === undefined ? 'none' : `"${String(header)}"`}); the volume size must be known before the upload, so point the catalogue at a mirror that sends it`,
    );
  }
  return length;
}

/** Closes a response body we will not read; undici reports that as an error nobody needs. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}
