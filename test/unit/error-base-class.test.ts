// One base class, AppError, under every error the API answers with its own code (auth, HTTP,
// control, store, provider inventory): it carries the code and the HTTP status, and toResponse
// recognises it with `instanceof`, not by a `code` property that any error could carry. The runtime
// and the route handlers are bundled apart (each has its own copy of these modules), so an error
// from one copy must still be an AppError to the other.
import { describe, expect, it, vi } from 'vitest';
import { apiErrorBodySchema, apiErrorCodes } from '@/lib/api/errors';
import * as authErrors from '@/server/auth/errors';
import { ConsoleInputError } from '@/server/control/console-types';
import * as controlErrors from '@/server/control/errors';
import * as onboardingErrors from '@/server/onboarding/errors';
import * as proxySetErrors from '@/server/control/proxy-set-errors';
import { SettingsError } from '@/server/control/settings';
import { AppError, ResourceNotFoundError, ResourceUnavailableError, UnsupportedOperationError } from '@/server/errors';
import * as httpErrors from '@/server/http/errors';
import { toResponse } from '@/server/http/to-response';
import { providerErrorCodes } from '@/server/providers/errors';
import { ConsoleBusyError } from '@/server/providers/instance-console';
import * as inventoryErrors from '@/server/providers/kvm2/inventory-errors';
import * as storeErrors from '@/server/store/errors';
import { createLogger } from '@/server/telemetry/logger';

const silent = createLogger({ level: 'silent' });
const fields = [{ path: 'port', message: 'must be an integer' }];

/** One instance of every class whose code the API sends, with the status it is answered with. */
const table: Array<[Error, number]> = [
  [new authErrors.InvalidCredentialsError(), 401],
  [new authErrors.TooManyAttemptsError(42), 429],
  [new authErrors.InvalidSetupCodeError(), 403],
  [new authErrors.PasswordAlreadySetError(), 409],
  [new authErrors.PasswordNotSetError(), 409],
  [new authErrors.PasswordManagedByEnvironmentError(), 409],
  [new authErrors.TokenNotFoundError('0123456789abcdef'), 404],
  [new httpErrors.InvalidInputError(fields), 400],
  [new httpErrors.UnauthenticatedError(), 401],
  [new httpErrors.ForeignOriginError('elsewhere'), 403],
  [new httpErrors.PayloadTooLargeError(10), 413],
  [new httpErrors.UnsupportedMediaTypeError(), 415],
  [new ResourceNotFoundError('provider', 'x'), 404],
  [new ResourceUnavailableError('not running'), 503],
  [new UnsupportedOperationError('no hosts'), 422],
  [new controlErrors.ProxyNotFoundError('x'), 404],
  [new controlErrors.ProxyValidationError(fields), 400],
  [new controlErrors.ProxyDeletingError('x'), 409],
  [new controlErrors.TooManyStreamsError(4), 429],
  [new onboardingErrors.HostSetupInputError(fields), 400],
  [new onboardingErrors.HostInUseError('hv-1', ['alpha']), 409],
  [new onboardingErrors.HostStorageInUseError({ host: 'hv-1', proxies: ['alpha'], changes: 'pool' }), 409],
  [new onboardingErrors.HostSetupRefusedError('ERR_UNSUPPORTED_OPERATION', 'no config file'), 422],
  [new onboardingErrors.HostSetupRefusedError('ERR_HOST_SETUP_CONFLICT', 'key file exists'), 409],
  [new proxySetErrors.ProxySetNotFoundError('crawl'), 404],
  [new proxySetErrors.ProxySetValidationError(fields), 400],
  [new proxySetErrors.ProxyOwnedError('crawl-1', 'crawl', 'deleted'), 409],
  [new proxySetErrors.ProxySetDeletingError('crawl'), 409],
  [new ConsoleInputError('alpha', { state: 'busy', message: 'held elsewhere' }), 409],
  [new ConsoleInputError('alpha', { state: 'closed', message: 'not opened yet' }), 503],
  [new SettingsError('DATA_DIR', 'bad'), 503],
  [new storeErrors.ProxyExistsError('x'), 409],
  [new storeErrors.ProxySetExistsError('crawl'), 409],
  [new storeErrors.StoreVersionError(9, 8), 503],
  [new storeErrors.StoreMigrationError({ version: 3, migrationName: 'sets', cause: new Error('disk full') }), 503],
  [new ConsoleBusyError('hv-1', 'kvm2-alpha'), 409],
  [new inventoryErrors.HostNotFoundError('hv-9', 'kvm2-home'), 404],
  [new inventoryErrors.ImageNotFoundError('v', 'is gone'), 404],
  [new inventoryErrors.ImageInUseError({ volume: 'v', host: 'hv-1', domains: ['d1'] }), 409],
  [new inventoryErrors.ImageBusyError('v', 'a download of it is in progress'), 409],
];

describe('AppError, the base of the errors the API answers with their own code', () => {
  it.each(table.map(([err, status]) => [err.name, (err as AppError).code, status, err] as const))(
    '%s (%s) is an AppError with status %i, which toResponse answers with its code',
    async (_name, _code, status, err) => {
      expect(err).toBeInstanceOf(AppError);
      const known = err as AppError;
      expect(known.status).toBe(status);
      const response = toResponse(err, silent);
      expect(response.status).toBe(status);
      expect(apiErrorBodySchema.parse(await response.json()).error).toMatchObject({ code: known.code, message: err.message });
    },
  );

  it('covers every code of the contract but the providers’ classes and ERR_INTERNAL', () => {
    const providerCodes: string[] = Object.values(providerErrorCodes);
    const expected = apiErrorCodes.filter((code) => code !== 'ERR_INTERNAL' && !providerCodes.includes(code));
    expect(new Set(table.map(([err]) => (err as AppError).code))).toEqual(new Set(expected));
  });

  it('recognises an error thrown by another copy of the modules (the runtime’s bundle, not the route’s)', async () => {
    vi.resetModules();
    const copy = await import('@/server/control/errors');
    const copyBase = await import('@/server/errors');
    expect(copyBase.AppError).not.toBe(AppError);
    const err = new copy.ProxyNotFoundError('alpha');
    expect(err).toBeInstanceOf(AppError);
    const response = toResponse(err, silent);
    expect(response.status).toBe(404);
    expect(apiErrorBodySchema.parse(await response.json()).error).toEqual({ code: 'ERR_PROXY_NOT_FOUND', message: 'no Proxy named "alpha"' });
  });

  it('keeps each subclass its own: one class’s error is not another’s', () => {
    expect(new controlErrors.ProxyNotFoundError('x')).not.toBeInstanceOf(proxySetErrors.ProxySetNotFoundError);
    expect(new onboardingErrors.HostStorageInUseError({ host: 'h', proxies: ['a'], changes: 'pool' })).toBeInstanceOf(onboardingErrors.HostInUseError);
    expect(new onboardingErrors.HostInUseError('h', ['a'])).not.toBeInstanceOf(onboardingErrors.HostStorageInUseError);
  });

  it('answers an error that only carries a known code, but is none of these, with a bare 500', async () => {
    const impostor = Object.assign(new Error('from a library'), { code: 'ERR_PROXY_NOT_FOUND' });
    expect(impostor).not.toBeInstanceOf(AppError);
    const response = toResponse(impostor, silent);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: 'ERR_INTERNAL', message: 'internal error' } });
  });
});
