// One AuthService per store (so per runtime), made on first use with ADMIN_PASSWORD from the
// environment applied before any request is answered.
import type { Store } from '@/server/store';
import { AuthService, type AuthServiceOptions } from './service';

const services = new WeakMap<Store, Promise<AuthService>>();

export function authOptionsFromEnv(env: Record<string, string | undefined> = process.env): Pick<AuthServiceOptions, 'adminPassword'> {
  const password = env.ADMIN_PASSWORD;
  return password === undefined || password === '' ? {} : { adminPassword: password };
}

/** The store's AuthService, created (and initialised) on the first call. */
export function authServiceFor(store: Store, options: Omit<AuthServiceOptions, 'db'> = authOptionsFromEnv()): Promise<AuthService> {
  let service = services.get(store);
  if (!service) {
    service = (async () => {
      const created = new AuthService({ ...options, db: store.db });
      await created.init();
      return created;
    })();
    // A failed init (unreadable store) is not kept: the next request tries again.
    service.catch(() => services.delete(store));
    services.set(store, service);
  }
  return service;
}

/** Uses `service` for `store` from now on (tests: a lower scrypt cost, a fixed clock). */
export function installAuthService(store: Store, service: AuthService): void {
  services.set(store, Promise.resolve(service));
}
