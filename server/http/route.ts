// The shape of every API route handler: refuse cross-site writes, authenticate, parse params,
// query and body with zod, call one service, answer JSON. Handlers get the runtime's services
// (server/runtime/services.ts), never its store or its control loops. A route names its answer's
// lib/api schema as `response`: the compiler holds the handler to it, and outside production each
// answer is checked against it as well (in production the contract tests have done that, and a
// list of thousands of Proxies is not parsed twice). Every failure on the way, the handler's own
// included, goes through toResponse, so handlers hold no try/catch.
//
//   export const GET = route({ access: 'admin', params: nameParams }, ({ services, params }) => services.proxies.get(params.name));
import type { z } from 'zod';
import { readCookie } from '@/server/auth/cookies';
import type { AuthService, Principal } from '@/server/auth/service';
import { getRuntime, type RouteServices } from '@/server/runtime';
import { logger as childLogger } from '@/server/telemetry/logger';
import { UnauthenticatedError } from './errors';
import { exposureFromEnv } from './exposure';
import { checkSameOrigin } from './origin';
import { defaultBodyLimitBytes, parseInput, queryObject, readJson } from './request';
import { noStore, toResponse } from './to-response';

/**
 * public: anyone (the auth routes themselves); admin: a session cookie; reader: a session cookie
 * or an API token as `Authorization: Bearer` (discovery and metrics, for crawler clients).
 */
export type Access = 'public' | 'admin' | 'reader';

type Schema = z.ZodType;
type Parsed<S extends Schema | undefined> = S extends Schema ? z.output<S> : undefined;
/** What a handler may return: what its response schema accepts, or a Response it built itself. */
type Answer<R extends Schema | undefined> = R extends Schema ? z.input<R> | Response : unknown;

const checkAnswers = process.env.NODE_ENV !== 'production';

export interface RouteOptions<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined, R extends Schema | undefined> {
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** the lib/api schema of a successful answer */
  response?: R;
  bodyLimitBytes?: number;
  /** status of a successful answer that is not a Response already (default 200) */
  status?: number;
}

export interface RouteInput<P, Q, B> {
  request: Request;
  services: RouteServices;
  auth: AuthService;
  /** undefined only on public routes without credentials */
  principal: Principal | undefined;
  /** the session cookie's value, when the request carries one */
  sessionCookie: string | undefined;
  params: P;
  query: Q;
  body: B;
}

/** What Next passes as the second argument: the dynamic segments, as a promise. */
export interface RouteContext {
  params: Promise<Record<string, string | string[] | undefined>>;
}

export type RouteHandler = (request: Request, context?: RouteContext) => Promise<Response>;

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

async function authenticate(options: {
  request: Request;
  auth: AuthService;
  access: Access;
  sessionCookie: string | undefined;
}): Promise<Principal | undefined> {
  const { request, auth, access, sessionCookie } = options;
  if (sessionCookie !== undefined && (await auth.sessionValid(sessionCookie))) return { kind: 'session' };
  const token = access === 'reader' ? bearerToken(request) : undefined;
  const principal = token === undefined ? undefined : await auth.tokenPrincipal(token);
  if (principal) return principal;
  if (access === 'public') return undefined;
  throw new UnauthenticatedError(access === 'reader' ? 'send an API token (Authorization: Bearer ...) or log in' : 'log in first');
}

/** Outside production: an answer that drifted from its schema is a 500 (ERR_INTERNAL) naming the fields in the log. */
function checkAnswer(options: { schema: Schema; answer: unknown; request: Request }): void {
  const checked = options.schema.safeParse(options.answer);
  if (checked.success) return;
  const issues = checked.error.issues.map((issue) => `${issue.path.join('.') || '(answer)'}: ${issue.message}`).join('; ');
  throw new Error(`the answer to ${options.request.method} ${new URL(options.request.url).pathname} does not match its lib/api schema: ${issues}`);
}

export function route<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  R extends Schema | undefined = undefined,
>(options: RouteOptions<P, Q, B, R>, handler: (input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>>) => Answer<R> | Promise<Answer<R>>): RouteHandler {
  return async (request, context) => {
    let services: RouteServices | undefined;
    try {
      checkSameOrigin(request, exposureFromEnv());
      services = (await getRuntime()).services;
      const { auth } = services;
      const sessionCookie = readCookie(request.headers.get('cookie'));
      const principal = await authenticate({ request, auth, access: options.access, sessionCookie });
      const params = (options.params ? parseInput(options.params, (await context?.params) ?? {}) : undefined) as Parsed<P>;
      const query = (options.query ? parseInput(options.query, queryObject(new URL(request.url))) : undefined) as Parsed<Q>;
      const body = (options.body ? parseInput(options.body, await readJson(request, options.bodyLimitBytes ?? defaultBodyLimitBytes)) : undefined) as Parsed<B>;
      const result = await handler({ request, services, auth, principal, sessionCookie, params, query, body });
      if (result instanceof Response) return result;
      if (options.response && checkAnswers) checkAnswer({ schema: options.response, answer: result, request });
      return Response.json(result ?? null, { status: options.status ?? 200, headers: noStore });
    } catch (err) {
      // Before the runtime is up (it failed to start), its logger does not exist yet.
      return toResponse(err, services?.httpLogger ?? childLogger('http'));
    }
  };
}
