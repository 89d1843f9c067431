// The dashboard pages' Content-Security-Policy. Scripts run only with the per-request nonce (Next
// reads it from the request's CSP header and puts it on its own scripts; 'strict-dynamic' lets
// those load the chunks they need); no eval outside development, where React needs it for its
// error overlays. Styles come from our stylesheet, plus inline style attributes (charts and bars
// set widths that way; a nonce cannot cover attributes). Nothing may frame a page, no plugin runs,
// and forms and <base> stay on this origin. Shared by proxy.ts; no node: imports.

/** A fresh nonce: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

export function contentSecurityPolicy(options: { nonce: string; development: boolean }): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", `'nonce-${options.nonce}'`, "'strict-dynamic'", ...(options.development ? ["'unsafe-eval'"] : [])],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}
