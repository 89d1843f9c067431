// Where the login page sends the browser afterwards: `next` as the browser resolves it, kept only
// on this origin. The tab, newline and backslash variants are what an outside review used to send
// the admin to another site after logging in.
import { describe, expect, it } from 'vitest';
import { safeNext } from '@/components/auth/login-form';

const origin = 'http://127.0.0.1:3000';

describe('the login page’s next parameter', () => {
  // As they appear in the login page's query string (`/login?next=...`).
  it.each([
    '/%09/evil.example/x',
    '/%0a/evil.example/x',
    '/%0d%0a/evil.example/x',
    '/%09%5Cevil.example/x',
    '%2F%2Fevil.example/x',
    '/%5Cevil.example',
    '%5C%5Cevil.example',
    'https://evil.example/',
    'http://127.0.0.1:3001/',
    'javascript:alert(1)',
    'http://[',
  ])('sends next=%s to the overview', (raw) => {
    const next = new URLSearchParams(`next=${raw}`).get('next');
    expect(safeNext(next, origin)).toBe('/');
  });

  it('keeps a path on this origin, with its query and fragment', () => {
    expect(safeNext('/proxies/alpha?tab=events#log', origin)).toBe('/proxies/alpha?tab=events#log');
    expect(safeNext('/hosts', origin)).toBe('/hosts');
    expect(safeNext(null, origin)).toBe('/');
  });
});
