// The request proxy in front of the pages: without a session cookie a page goes to /login with
// the way back; with one it passes (the API verifies the session itself) with a Content-Security-
// Policy carrying a fresh nonce, on the request (for Next to use) and on the response.
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { config, proxy } from '@/proxy';

const request = (path: string, cookie?: string) => new NextRequest(`http://dash.test${path}`, { headers: cookie ? { cookie } : {} });

describe('the page proxy', () => {
  it('sends a page without a session cookie to the login page, keeping the way back', () => {
    const response = proxy(request('/proxies/alpha?tab=events'));
    expect(response.status).toBe(307);
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('next')).toBe('/proxies/alpha?tab=events');
    expect(new URL(proxy(request('/')).headers.get('location') ?? '').search).toBe('');
  });

  it('lets a page with a session cookie through', () => {
    const response = proxy(request('/hosts', 'other=1; kvm2_session=abc.def'));
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('x-middleware-next')).toBe('1');
  });

  it('answers 404 for a page path with malformed percent-encoding, logged in or not', async () => {
    for (const path of ['/hosts/a/%', '/hosts/%E2%82/b', '/proxies/%zz']) {
      for (const cookie of [undefined, 'kvm2_session=abc.def']) {
        const response = proxy(request(path, cookie));
        expect(response.status, path).toBe(404);
        expect(await response.text()).toContain('malformed percent-encoding');
      }
    }
    expect(proxy(request('/hosts/a/%25', 'kvm2_session=abc.def')).status).toBe(200);
  });

  it('gives every page, the login page included, a CSP with a fresh nonce and no eval', () => {
    const policies = [
      proxy(request('/hosts', 'kvm2_session=abc.def')),
      proxy(request('/login?next=/x')),
      proxy(request('/settings', 'kvm2_session=abc.def')),
    ].map((response) => {
      expect(response.headers.get('location')).toBeNull();
      const policy = response.headers.get('content-security-policy') ?? '';
      // Next reads the nonce from the request's CSP, which the proxy passes on as an override.
      expect(response.headers.get('x-middleware-request-content-security-policy')).toBe(policy);
      return policy;
    });
    const nonces = policies.map((policy) => /'nonce-([A-Za-z0-9+/=]{22,})'/.exec(policy)?.[1]);
    expect(new Set(nonces).size).toBe(3);
    for (const policy of policies) {
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("object-src 'none'");
      expect(policy).not.toContain('unsafe-eval');
    }
  });

  it('leaves the API and Next assets out of its matcher', () => {
    // The pattern is a regular expression in path-to-regexp's group syntax; anchored, it reads the same.
    const matcher = new RegExp(`^${config.matcher[0]}$`);
    for (const path of ['/', '/hosts', '/proxies/new', '/settings', '/login']) expect(matcher.test(path), path).toBe(true);
    for (const path of ['/api/proxies', '/_next/static/chunk.js', '/favicon.ico']) expect(matcher.test(path), path).toBe(false);
  });
});
