// CSRF protection for state-changing requests: a browser names the page that sent a request in
// `Origin` (and `Sec-Fetch-Site`); one from anywhere but the dashboard's own origins is refused
// with 403. The own origins are APP_ORIGIN, or by default the address the connection reached and
// the loopback names on the server's port: never the request's Host header, which a DNS-rebinding
// page controls (its own name, resolved to this server). Requests without either header come from
// scripts and crawler clients, which cannot ride on the admin's cookie (SameSite=Strict) and must
// authenticate on their own.
import { connectionOf } from './connection';
import { ForeignOriginError } from './errors';
import { defaultOrigins, type Exposure } from './exposure';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isStateChanging(method: string): boolean {
  return !safeMethods.has(method.toUpperCase());
}

/** The origins this request may come from. */
export function ownOrigins(request: Request, exposure: Pick<Exposure, 'appOrigins'>): string[] {
  if (exposure.appOrigins) return exposure.appOrigins;
  const connection = connectionOf(request);
  const port = connection?.localPort ?? Number(process.env.PORT ?? 3000);
  return defaultOrigins({ address: connection?.localAddress, port });
}

function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Throws ForeignOriginError when a state-changing request comes from another site. */
export function checkSameOrigin(request: Request, exposure: Pick<Exposure, 'appOrigins'>): void {
  if (!isStateChanging(request.method)) return;
  const origin = request.headers.get('origin');
  if (origin !== null) {
    const normalised = origin === 'null' ? undefined : originOf(origin);
    if (normalised === undefined) throw new ForeignOriginError('the Origin header is not a site');
    if (!ownOrigins(request, exposure).includes(normalised)) {
      throw new ForeignOriginError(`the Origin header names another site than this server's (set APP_ORIGIN to the address browsers use for the dashboard)`);
    }
    return;
  }
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') throw new ForeignOriginError(`Sec-Fetch-Site is ${site}`);
}
