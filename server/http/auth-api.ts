// The auth routes' server functions: they turn AuthService results into answers carrying the
// session cookie (set on login and password change, cleared on logout). The cookie's value goes
// only into Set-Cookie, never into a body or a log line.
import type { AuthStatus, LoggedOutBody, PasswordSetBody, SessionBody } from '@/lib/api/auth';
import { clearedSessionCookie, sessionCookie } from '@/server/auth/cookies';
import type { AuthService } from '@/server/auth/service';
import type { IssuedSession } from '@/server/auth/sessions';
import { clientAddress, isHttps } from './client';
import { noStore } from './to-response';

interface AuthCall {
  auth: AuthService;
  request: Request;
}

function withSession(options: { request: Request; session: IssuedSession; status?: number }): Response {
  const { request, session } = options;
  const cookie = sessionCookie({ value: session.cookieValue, expiresAtMs: session.expiresAtMs, nowMs: session.issuedAtMs, secure: isHttps(request) });
  const body: SessionBody = { authenticated: true, expiresAt: new Date(session.expiresAtMs).toISOString() };
  return Response.json(body, { status: options.status ?? 200, headers: { ...noStore, 'set-cookie': cookie } });
}

export function authStatus(options: { auth: AuthService; sessionCookie: string | undefined }): AuthStatus {
  return options.auth.status(options.sessionCookie) satisfies AuthStatus;
}

export async function login(options: AuthCall & { password: string }): Promise<Response> {
  const session = await options.auth.login({ password: options.password, client: clientAddress(options.request) });
  return withSession({ request: options.request, session });
}

export function logout(options: AuthCall & { sessionCookie: string | undefined }): Response {
  options.auth.logout(options.sessionCookie);
  return Response.json({ authenticated: false } satisfies LoggedOutBody, { headers: { ...noStore, 'set-cookie': clearedSessionCookie({ secure: isHttps(options.request) }) } });
}

export async function setupPassword(options: { auth: AuthService; password: string }): Promise<PasswordSetBody> {
  await options.auth.setup(options.password);
  return { passwordConfigured: true };
}

/** Every other session ends; the caller gets a fresh one. */
export async function changePassword(options: AuthCall & { currentPassword: string; newPassword: string }): Promise<Response> {
  const session = await options.auth.changePassword({
    currentPassword: options.currentPassword,
    newPassword: options.newPassword,
    client: clientAddress(options.request),
  });
  return withSession({ request: options.request, session });
}
