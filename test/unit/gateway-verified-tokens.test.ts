import { describe, expect, it } from 'vitest';
import { VerifiedTokens } from '@/server/gateway/verified-tokens';

function setup(options: { maxEntries?: number } = {}) {
  let nowMs = 1_000;
  const calls: string[] = [];
  const tokens = new VerifiedTokens<{ id: string }>({
    verify: async (token) => {
      calls.push(token);
      return token.startsWith('good') ? { id: token } : undefined;
    },
    ttlMs: 1_000,
    now: () => nowMs,
    ...options,
  });
  return { tokens, calls, advance: (ms: number) => (nowMs += ms) };
}

describe('VerifiedTokens', () => {
  it('checks a good token with the store once within the ttl, then again after it', async () => {
    const { tokens, calls, advance } = setup();
    expect(await tokens.verify('good-1')).toEqual({ id: 'good-1' });
    advance(999);
    expect(await tokens.verify('good-1')).toEqual({ id: 'good-1' });
    expect(calls).toEqual(['good-1']);
    advance(1);
    expect(await tokens.verify('good-1')).toEqual({ id: 'good-1' });
    expect(calls).toEqual(['good-1', 'good-1']);
  });

  it('checks a wrong token every time (the rate limit counts each)', async () => {
    const { tokens, calls } = setup();
    expect(await tokens.verify('bad')).toBeUndefined();
    expect(await tokens.verify('bad')).toBeUndefined();
    expect(calls).toEqual(['bad', 'bad']);
  });

  it('a token that stopped verifying (revoked) is refused once its entry expired', async () => {
    let revoked = false;
    let nowMs = 0;
    const tokens = new VerifiedTokens({ verify: async () => (revoked ? undefined : { id: 't' }), ttlMs: 1_000, now: () => nowMs });
    expect(await tokens.verify('good')).toEqual({ id: 't' });
    revoked = true;
    nowMs = 1_000;
    expect(await tokens.verify('good')).toBeUndefined();
  });

  it('remembers at most maxEntries tokens', async () => {
    const { tokens, calls } = setup({ maxEntries: 2 });
    for (const token of ['good-1', 'good-2', 'good-3', 'good-1']) await tokens.verify(token);
    expect(calls).toEqual(['good-1', 'good-2', 'good-3', 'good-1']);
  });
});
