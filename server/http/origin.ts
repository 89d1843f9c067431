// CSRF protection for state-changing requests: a browser names the page that sent a request in
// `Origin` (and `Sec-Fetch-Site`); one from another site is refused with 403. Requests without
// either header come from scripts and crawler clients, which cannot ride on the admin's cookie
// (SameSite=Strict) and must authenticate on their own.
import { ForeignOriginError } from './errors';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** host[:port] values this server answers to, lower-case. */
function ownHosts(request: Request, extraOrigins: readonly string[]): Set<string> {
  const hosts = new Set<string>();
  const add = (value: string | null | undefined) => {
    const first = value?.split(',')[0]?.trim().toLowerCase();
    if (first) hosts.add(first);
  };
  add(request.headers.get('host'));
  // Set by Next from Host, or by a reverse proxy; a cross-site page cannot set it without a preflight.
  add(request.headers.get('x-forwarded-host'));
  add(new URL(request.url).host);
  for (const origin of extraOrigins) add(hostOf(origin));
  return hosts;
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Origins allowed besides this server's own (ALLOWED_ORIGINS, comma-separated), e.g. behind a proxy rewriting Host. */
export function allowedOriginsFromEnv(env: Record<string, string | undefined> = process.env): string[] {
  return (env.ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

export function isStateChanging(method: string): boolean {
  return !safeMethods.has(method.toUpperCase());
}

/** Throws ForeignOriginError when a state-changing request comes from another site. */
export function checkSameOrigin(request: Request, extraOrigins: readonly string[] = allowedOriginsFromEnv()): void {
  if (!isStateChanging(request.method)) return;
  const origin = request.headers.get('origin');
  if (origin !== null) {
    const host = origin === 'null' ? undefined : hostOf(origin);
    if (host === undefined) throw new ForeignOriginError('the Origin header is not a site');
    if (!ownHosts(request, extraOrigins).has(host)) throw new ForeignOriginError("the Origin header names another site than this server's");
    return;
  }
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') throw new ForeignOriginError(`Sec-Fetch-Site is ${site}`);
}
