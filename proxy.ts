// Next's request proxy (the former middleware): pages without a session cookie go to /login.
// It only checks that the cookie is there: it cannot reach the store to verify it, and does not
// need to, because every API route verifies the session itself and pages hold no data of their
// own. The API, Next's assets and the login page pass untouched.
import { type NextRequest, NextResponse } from 'next/server';
import { sessionCookieName } from '@/server/auth/cookie-name';

export function proxy(request: NextRequest): NextResponse {
  if (request.cookies.has(sessionCookieName)) return NextResponse.next();
  const login = new URL('/login', request.url);
  const back = request.nextUrl.pathname + request.nextUrl.search;
  if (back !== '/') login.searchParams.set('next', back);
  return NextResponse.redirect(login);
}

export const config = {
  matcher: ['/((?!api/|login|_next/|favicon\\.ico|robots\\.txt|.*\\.(?:png|svg|ico|jpg|jpeg|webp|css|js|map|txt)$).*)'],
};
