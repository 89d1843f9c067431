import { describe, expect, it } from 'vitest';
import { GatewayUsernameError, parseUsername } from '@/server/gateway/username';

const refusal = (username: string): GatewayUsernameError => {
  try {
    parseUsername(username);
  } catch (err) {
    if (err instanceof GatewayUsernameError) return err;
    throw err;
  }
  throw new Error(`${JSON.stringify(username)} was accepted`);
};

describe('gateway username: the forms', () => {
  it.each([
    ['crawler1', { client: 'crawler1', labels: {} }],
    ['', { client: '', labels: {} }],
    ['john.doe@example.com', { client: 'john.doe@example.com', labels: {} }],
    ['crawler1-set-eu', { client: 'crawler1', set: 'eu', labels: {} }],
    ['crawler1-set-eu-west', { client: 'crawler1', set: 'eu-west', labels: {} }],
    ['crawler1-label-tier=fast', { client: 'crawler1', labels: { tier: 'fast' } }],
    ['crawler1-label-example.com/tier=fast', { client: 'crawler1', labels: { 'example.com/tier': 'fast' } }],
    ['crawler1-label-tier=', { client: 'crawler1', labels: { tier: '' } }],
    ['crawler1-session-abc123', { client: 'crawler1', session: 'abc123', labels: {} }],
    ['crawler1-session-0f8fad5b-d9cb-469f-a165-70867728950e', { client: 'crawler1', session: '0f8fad5b-d9cb-469f-a165-70867728950e', labels: {} }],
    ['crawler1-proxy-eu-ab12c', { client: 'crawler1', proxy: 'eu-ab12c', labels: {} }],
    ['-session-abc', { client: '', session: 'abc', labels: {} }],
  ])('%j', (username, selector) => {
    expect(parseUsername(username)).toEqual(selector);
  });

  it('combines a set, labels and a session in any order: the pool is narrowed by all of them, the session picks in it', () => {
    const expected = { client: 'crawler1', set: 'eu', labels: { tier: 'fast', disk: 'ssd' }, session: 'abc123' };
    expect(parseUsername('crawler1-set-eu-label-tier=fast-label-disk=ssd-session-abc123')).toEqual(expected);
    expect(parseUsername('crawler1-session-abc123-label-disk=ssd-set-eu-label-tier=fast')).toEqual(expected);
  });

  it('reads a value that starts with a keyword as the value, not as a new part', () => {
    expect(parseUsername('c-set-proxy-pool')).toEqual({ client: 'c', set: 'proxy-pool', labels: {} });
    expect(parseUsername('c-session-set-1')).toEqual({ client: 'c', session: 'set-1', labels: {} });
  });

  it('keeps keywords case-sensitive: an upper-case one is part of the client name', () => {
    expect(parseUsername('crawler-SET-eu')).toEqual({ client: 'crawler-SET-eu', labels: {} });
  });

  it('returns labels as plain data (a key like constructor is a label, not a property of Object)', () => {
    expect(parseUsername('c-label-constructor=x').labels).toEqual({ constructor: 'x' });
  });
});

describe('gateway username: garbage gets an error naming the part', () => {
  it.each([
    ['crawler1-set', 'username: -set needs a name'],
    ['crawler1-set-', 'username: -set needs a name'],
    ['crawler1-set--session-a', 'username: -set needs a name'],
    ['crawler1-session', 'username: -session needs an id'],
    ['crawler1-set-eu-session', 'username: -session needs an id'],
    ['crawler1-proxy', 'username: -proxy needs a name'],
    ['crawler1-label', 'username: -label needs key=value'],
    ['crawler1-label-tier', 'username: -label needs key=value, got "tier"'],
    ['crawler1-label-=fast', 'username: -label needs key=value, got "=fast"'],
  ])('%j: %s', (username, message) => {
    const err = refusal(username);
    expect(err.message).toBe(message);
    expect(err.code).toBe('ERR_GATEWAY_USERNAME');
  });

  it.each([
    ['c-set-EU', '-set', 'username: -set "EU" must be a DNS-1123 label'],
    ['c-set-eu_west', '-set', 'username: -set "eu_west" must be a DNS-1123 label'],
    [`c-set-${'a'.repeat(58)}`, '-set', 'username: -set "aaaa'],
    ['c-proxy-Eu1', '-proxy', 'username: -proxy "Eu1" must be a DNS-1123 label'],
    [`c-proxy-${'a'.repeat(64)}`, '-proxy', 'must be at most 63 characters'],
    ['c-session-a b', '-session', 'username: -session "a b" may contain only letters, digits, dots, underscores and dashes'],
    ['c-session--x', '-session', 'starting and ending with a letter or digit'],
    [`c-session-${'a'.repeat(129)}`, '-session', 'at most 128 characters'],
    ['c-label-tier=fast!', '-label', 'username: -label "tier=fast!" may contain letters, digits'],
    ['c-label-ti er=fast', '-label', 'username: -label "ti er=fast" label keys are'],
    ['c-label-__proto__=x', '-label', '"__proto__" is not a label key'],
    ['c-set-eu-set-us', '-set', 'username: -set given twice'],
    ['c-session-a-session-b', '-session', 'username: -session given twice'],
    ['c-proxy-a-proxy-b', '-proxy', 'username: -proxy given twice'],
    ['c-label-tier=a-label-tier=b', '-label', 'username: -label tier given twice'],
    ['c-proxy-a-set-eu', '-proxy', 'username: -proxy pins one proxy and takes no -set, -label or -session: leave out -set'],
    ['c-proxy-a-label-tier=x-session-s', '-proxy', 'username: -proxy pins one proxy and takes no -set, -label or -session: leave out -label, -session'],
    ['bad\u0007client', 'client', 'username: the client name must not contain control characters'],
    [`${'c'.repeat(129)}`, 'client', 'username: the client name must be at most 128 characters'],
    [`c-session-s${'-label-a=b'.repeat(200)}`, 'username', 'username: must be at most 1024 characters'],
  ])('%j', (username, part, message) => {
    const err = refusal(username);
    expect(err.part).toBe(part);
    expect(err.message).toContain(message);
  });

  it('quotes what the client sent in printable ASCII, so the message is safe in an X-Gateway-Error header', () => {
    const err = refusal('c-set-é\r\nX-Evil: 1');
    expect(err.message).toMatch(/^[\x20-\x7e]+$/);
    expect(err.message).toContain('\\u00e9\\r\\nX-Evil: 1');
  });
});
