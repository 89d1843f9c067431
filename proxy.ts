// Next's request proxy (the former middleware), in front of every page: it answers 404 for a path
// with malformed percent-encoding (no page can name it, and Next would answer 500), gives the page
// a fresh CSP nonce (Next puts it on its scripts), and sends pages without a session cookie to
// /login. It only checks that the cookie is there: it cannot reach the store to verify it, and does
// not need to, because every API route verifies the session itself and pages hold no data of their
// own. The API and Next's assets pass untouched; their headers come from next.config.mjs.
import { type NextRequest, NextResponse } from 'next/server';
import { contentSecurityPolicy, newNonce } from '@/lib/content-security-policy';
import { decodeSegment } from '@/lib/path-segment';
import { sessionCookieName } from '@/server/auth/cookie-name';

const cspHeader = 'content-security-policy';

export function proxy(request: NextRequest): NextResponse {
  const path = request.nextUrl.pathname;
  if (path.split('/').some((segment) => decodeSegment(segment) === undefined)) {
    return new NextResponse('Not Found: the address has malformed percent-encoding\n', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  }
  if (path !== '/login' && !request.cookies.has(sessionCookieName)) {
    const login = new URL('/login', request.url);
    const back = path + request.nextUrl.search;
    if (back !== '/') login.searchParams.set('next', back);
    return NextResponse.redirect(login);
  }
  const policy = contentSecurityPolicy({ nonce: newNonce(), development: process.env.NODE_ENV === 'development' });
  const headers = new Headers(request.headers);
  headers.set(cspHeader, policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set(cspHeader, policy);
  return response;
}

export const config = {
  matcher: ['/((?!api/|_next/|favicon\\.ico|robots\\.txt|.*\\.(?:png|svg|ico|jpg|jpeg|webp|css|js|map|txt)$).*)'],
};
