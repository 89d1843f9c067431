// The auth service's settings from the environment: ADMIN_PASSWORD, applied before any request is
// answered (the runtime owns the service and initialises it at start).
import type { AuthServiceOptions } from './service';

export function authOptionsFromEnv(env: Record<string, string | undefined> = process.env): Pick<AuthServiceOptions, 'adminPassword'> {
  const password = env.ADMIN_PASSWORD;
  return password === undefined || password === '' ? {} : { adminPassword: password };
}
