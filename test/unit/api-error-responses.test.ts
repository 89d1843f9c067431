// toResponse: every typed error the API can meet, mapped to its status with
// `{error: {code, message, fields?}}` (checked against the contract's schema); provider errors by
// their class, also when wrapped; anything else a bare 500 (ERR_INTERNAL) that says nothing.
import { describe, expect, it } from 'vitest';
import {
  InvalidCredentialsError,
  PasswordAlreadySetError,
  PasswordManagedByEnvironmentError,
  PasswordNotSetError,
  TokenNotFoundError,
  TooManyAttemptsError,
} from '@/server/auth/errors';
import { ProxyDeletingError, ProxyExistsError, ProxyNotFoundError, ProxyValidationError } from '@/server/control/errors';
import { SettingsError } from '@/server/control/settings';
import { ForeignOriginError, InvalidInputError, PayloadTooLargeError, UnauthenticatedError, UnsupportedMediaTypeError } from '@/server/http/errors';
import { ResourceNotFoundError, ResourceUnavailableError, UnsupportedOperationError } from '@/server/errors';
import { apiErrorBodySchema } from '@/lib/api/errors';
import { toResponse } from '@/server/http/to-response';
import { ErrNotFound, ErrPermanent, ErrQuotaExceeded, ErrTransient } from '@/server/providers/errors';
import { HostNotFoundError, ImageBusyError, ImageInUseError, ImageNotFoundError } from '@/server/providers/kvm2/inventory';
import { createLogger } from '@/server/telemetry/logger';

const silent = createLogger({ level: 'silent' });

const table: Array<[string, Error & { code: string }, number]> = [
  ['invalid input', new InvalidInputError([{ path: 'port', message: 'must be an integer' }]), 400],
  ['invalid Proxy', new ProxyValidationError([{ path: 'name', message: 'bad' }]), 400],
  ['no session', new UnauthenticatedError(), 401],
  ['wrong password', new InvalidCredentialsError(), 401],
  ['foreign origin', new ForeignOriginError('elsewhere'), 403],
  ['unknown resource', new ResourceNotFoundError('provider', 'x'), 404],
  ['unknown Proxy', new ProxyNotFoundError('x'), 404],
  ['unknown token', new TokenNotFoundError('0123456789abcdef'), 404],
  ['unknown host', new HostNotFoundError('h', 'p'), 404],
  ['unknown image', new ImageNotFoundError('v', 'is gone'), 404],
  ['instance gone', new ErrNotFound('gone'), 404],
  ['Proxy exists', new ProxyExistsError('x'), 409],
  ['Proxy deleting', new ProxyDeletingError('x'), 409],
  ['password set', new PasswordAlreadySetError(), 409],
  ['password not set', new PasswordNotSetError(), 409],
  ['password from env', new PasswordManagedByEnvironmentError(), 409],
  ['image in use', new ImageInUseError({ volume: 'v', host: 'h', domains: ['d1'] }), 409],
  ['image busy', new ImageBusyError('v', 'a download of it is in progress'), 409],
  ['too large', new PayloadTooLargeError(10), 413],
  ['not JSON', new UnsupportedMediaTypeError(), 415],
  ['unsupported', new UnsupportedOperationError('no hosts'), 422],
  ['provider refused', new ErrPermanent('pool "x" is not running'), 422],
  ['too many logins', new TooManyAttemptsError(42), 429],
  ['provider unreachable', new ErrTransient('host unreachable'), 503],
  ['provider not running', new ResourceUnavailableError('not running'), 503],
  ['bad settings', new SettingsError('DATA_DIR', 'bad'), 503],
  ['pool full', new ErrQuotaExceeded('pool has 1 byte'), 507],
];

describe('toResponse', () => {
  it.each(table)('answers %s with %i, its code and the error message', async (_what, err, status) => {
    const response = toResponse(err, silent);
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { error } = apiErrorBodySchema.parse(await response.json());
    expect(error.code).toBe(err.code);
    expect(error.message).toBe(err.message);
    if (status === 400) expect(error.fields).toEqual((err as InvalidInputError).fields);
    else expect(error).not.toHaveProperty('fields');
  });

  it('tells a throttled client when to come back', () => {
    expect(toResponse(new TooManyAttemptsError(42), silent).headers.get('retry-after')).toBe('42');
  });

  it('finds a provider class along the cause chain', async () => {
    const wrapped = new Error('while listing', { cause: new ErrTransient('connection lost') });
    const response = toResponse(wrapped, silent);
    expect(response.status).toBe(503);
    expect(apiErrorBodySchema.parse(await response.json()).error).toEqual({ code: 'ERR_TRANSIENT', message: 'while listing' });
  });

  it('answers anything else with a bare 500, logging what it was', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    const response = toResponse(new TypeError('cannot read x of undefined'), log);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: 'ERR_INTERNAL', message: 'internal error' } });
    expect(lines.join('')).toContain('cannot read x of undefined');
  });
});
