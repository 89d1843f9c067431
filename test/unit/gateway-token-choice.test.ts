// Which password the Gateway page's URL carries: the whole token right after "New gateway token"
// (its only showing), a listed token's prefix with a placeholder for its secret otherwise, the
// first listed token when none was picked, and a placeholder while there is no token at all.
import { describe, expect, it } from 'vitest';
import { noTokenPlaceholder, tokenChoice } from '@/components/gateway/token-choice';

const eu = { id: '0123456789abcdef', name: 'crawler-eu', prefix: 'kvm2g_0123456789abcdef' };
const us = { id: 'fedcba9876543210', name: 'crawler-us', prefix: 'kvm2g_fedcba9876543210' };
const created = { id: 'aaaaaaaaaaaaaaaa', name: 'new', token: 'kvm2g_aaaaaaaaaaaaaaaa_c2VjcmV0' };

describe('the token in the URL', () => {
  it('is the whole new token once created, even before the list shows it', () => {
    expect(tokenChoice({ tokens: [eu], selectedId: created.id, created })).toEqual({ kind: 'complete', name: 'new', password: created.token });
    expect(tokenChoice({ tokens: [eu, { ...created, prefix: 'kvm2g_aaaaaaaaaaaaaaaa' }], selectedId: undefined, created })).toMatchObject({
      kind: 'complete',
    });
  });

  it("is a listed token's prefix and a placeholder for its secret once another token is picked", () => {
    expect(tokenChoice({ tokens: [eu, us], selectedId: us.id, created })).toEqual({
      kind: 'placeholder',
      name: 'crawler-us',
      password: 'kvm2g_fedcba9876543210_PASTE_SECRET_HERE',
    });
  });

  it('is the first listed token when none was picked', () => {
    expect(tokenChoice({ tokens: [eu, us], selectedId: undefined, created: undefined })).toMatchObject({ kind: 'placeholder', name: 'crawler-eu' });
  });

  it('is a placeholder when there is no token yet', () => {
    expect(tokenChoice({ tokens: [], selectedId: undefined, created: undefined })).toEqual({ kind: 'none', password: noTokenPlaceholder });
  });
});
