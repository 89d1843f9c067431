// The auth routes' server functions: they turn AuthService results into answers carrying the
// session cookie (set on login and password change, cleared on logout). The cookie's value goes
// only into Set-Cookie, never into a body or a log line.
import type { AuthStatus, PasswordChangedBody, PasswordSetBody, SessionBody } from '@/lib/api/auth';
import type { LoggedOutBody } from '@/lib/api/logout';
import { clearedSessionCookie, sessionCookie } from '@/server/auth/cookies';
import type { AuthService } from '@/server/auth/service';
import type { IssuedSession } from '@/server/auth/sessions';
import { clientAddress, isHttps } from './client';
import { exposureFromEnv } from './exposure';
import { warnUntrustedForwarding } from './forwarding-warning';
import { noStore } from './to-response';

interface AuthCall {
  auth: AuthService;
  request: Request;
}

function withSession<Extra extends object>(options: { request: Request; session: IssuedSession; extra?: Extra }): Response {
  const { request, session } = options;
  const cookie = sessionCookie({
    value: session.cookieValue,
    expiresAtMs: session.expiresAtMs,
    nowMs: session.issuedAtMs,
    secure: isHttps(request, exposureFromEnv()),
  });
  const body: SessionBody & Extra = { authenticated: true, expiresAt: new Date(session.expiresAtMs).toISOString(), ...(options.extra as Extra) };
  return Response.json(body, { headers: { ...noStore, 'set-cookie': cookie } });
}

/** The address a password attempt counts under; says once when a local proxy makes everyone share it. */
function attemptClient(request: Request): string {
  const exposure = exposureFromEnv();
  warnUntrustedForwarding({ request, exposure });
  return clientAddress(request, exposure);
}

export function authStatus(options: { auth: AuthService; sessionCookie: string | undefined }): Promise<AuthStatus> {
  return options.auth.status(options.sessionCookie);
}

export async function login(options: AuthCall & { password: string }): Promise<Response> {
  const session = await options.auth.login({ password: options.password, client: attemptClient(options.request) });
  return withSession({ request: options.request, session });
}

export function logout(options: AuthCall & { sessionCookie: string | undefined }): Response {
  options.auth.logout(options.sessionCookie);
  return Response.json({ authenticated: false } satisfies LoggedOutBody, {
    headers: { ...noStore, 'set-cookie': clearedSessionCookie({ secure: isHttps(options.request, exposureFromEnv()) }) },
  });
}

export async function setupPassword(options: AuthCall & { password: string; setupCode: string }): Promise<PasswordSetBody> {
  await options.auth.setup({ password: options.password, setupCode: options.setupCode, client: attemptClient(options.request) });
  return { passwordConfigured: true };
}

/** Every other session ends (and every API token, when asked); the caller gets a fresh session. */
export async function changePassword(options: AuthCall & { currentPassword: string; newPassword: string; revokeTokens?: boolean }): Promise<Response> {
  const { session, revokedTokens } = await options.auth.changePassword({
    currentPassword: options.currentPassword,
    newPassword: options.newPassword,
    revokeTokens: options.revokeTokens,
    client: attemptClient(options.request),
  });
  return withSession<Pick<PasswordChangedBody, 'revokedTokens'>>({ request: options.request, session, extra: { revokedTokens } });
}
