// The one way a URL is written anywhere it may be read by someone else: error messages, the
// Proxy's events, log lines, span status and API responses. Image URLs may carry credentials
// (`https://user:token@mirror/...`) or a signed query (`?X-Amz-Signature=...`); both go, and so
// does the fragment. What is left (scheme, host, port, path) says which mirror and which file.

/** `url` without userinfo, query or fragment; `<unparseable URL>` when it is not a URL at all. */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '<unparseable URL>';
  }
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}
