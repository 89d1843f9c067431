import { describe, expect, it, vi } from 'vitest';
import {
  ErrNotFound,
  ErrPermanent,
  ErrQuotaExceeded,
  ErrTransient,
  errorClassOf,
  isNotFound,
  isPermanent,
  isQuotaExceeded,
  isTransient,
  providerError,
  ProviderError,
  tagError,
  type ProviderErrorClass,
} from '@/server/providers/errors';

describe('provider error classes', () => {
  it.each([
    { errorClass: 'permanent' as const, type: ErrPermanent, code: 'ERR_PERMANENT', is: isPermanent },
    { errorClass: 'transient' as const, type: ErrTransient, code: 'ERR_TRANSIENT', is: isTransient },
    { errorClass: 'notFound' as const, type: ErrNotFound, code: 'ERR_NOT_FOUND', is: isNotFound },
    { errorClass: 'quotaExceeded' as const, type: ErrQuotaExceeded, code: 'ERR_QUOTA_EXCEEDED', is: isQuotaExceeded },
  ])('$errorClass has a stable code, its own type and predicate', ({ errorClass, type, code, is }) => {
    const cause = new Error('socket closed');
    const err = providerError(errorClass, 'it broke', { cause });
    expect(err).toBeInstanceOf(type);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe(type.name);
    expect(err.code).toBe(code);
    expect(err.errorClass).toBe(errorClass);
    expect(err.cause).toBe(cause);
    expect(is(err)).toBe(true);
    const others = (['permanent', 'transient', 'notFound', 'quotaExceeded'] as ProviderErrorClass[]).filter((c) => c !== errorClass);
    for (const other of others) expect(errorClassOf(err)).not.toBe(other);
  });

  it('tags an error with a class, keeping it as the cause', () => {
    const original = new Error('connect ECONNREFUSED');
    const tagged = tagError('transient', original);
    expect(tagged).toBeInstanceOf(ErrTransient);
    expect(tagged.message).toBe('connect ECONNREFUSED');
    expect(tagged.cause).toBe(original);
    expect(tagError('permanent', 'a string', 'bad input').message).toBe('bad input');
  });

  it('returns an error already of the class unchanged, and re-tags one of another class', () => {
    const permanent = new ErrPermanent('no such image');
    expect(tagError('permanent', permanent)).toBe(permanent);
    const retagged = tagError('transient', new ErrNotFound('no domain'));
    expect(errorClassOf(retagged)).toBe('transient');
  });

  it('finds the class along the cause chain, and none on an untagged error', () => {
    const inner = new ErrQuotaExceeded('pool full');
    const outer = new Error('create failed', { cause: new Error('step failed', { cause: inner }) });
    expect(errorClassOf(outer)).toBe('quotaExceeded');
    expect(errorClassOf(new Error('plain'))).toBeUndefined();
    expect(errorClassOf('not an error')).toBeUndefined();
  });

  it('survives a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(errorClassOf(a)).toBeUndefined();
  });

  // Next bundles the runtime (which runs the providers) apart from each route, each with its own
  // copy of this module: a provider error crossing from one copy to the other keeps its class.
  it('recognises an error of another copy of the module (the runtime’s bundle, not the route’s)', async () => {
    vi.resetModules();
    const copy = await import('@/server/providers/errors');
    expect(copy.ProviderError).not.toBe(ProviderError);
    const err = new Error('DomainLookupByName failed', { cause: new copy.ErrNotFound('no domain "proxy-1"') });
    expect(errorClassOf(err)).toBe('notFound');
    expect(isNotFound(err)).toBe(true);
    expect(new copy.ErrPermanent('bad image')).toBeInstanceOf(ProviderError);
    expect(new copy.ErrPermanent('bad image')).not.toBeInstanceOf(ErrTransient);
    expect(tagError('notFound', new copy.ErrNotFound('gone'))).toBeInstanceOf(copy.ErrNotFound);
  });

  it('does not take an error that merely carries a provider code for one', () => {
    const impostor = Object.assign(new Error('from a library'), { code: 'ERR_NOT_FOUND', errorClass: 'notFound' });
    expect(impostor).not.toBeInstanceOf(ProviderError);
    expect(errorClassOf(impostor)).toBeUndefined();
  });
});
