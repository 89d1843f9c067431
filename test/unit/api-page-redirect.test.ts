// The request proxy in front of the pages: without a session cookie a page goes to /login with
// the way back; with one it passes (the API verifies the session itself).
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

  it('leaves the API, the login page and Next assets out of its matcher', () => {
    // The pattern is a regular expression in path-to-regexp's group syntax; anchored, it reads the same.
    const matcher = new RegExp(`^${config.matcher[0]}$`);
    for (const path of ['/', '/hosts', '/proxies/new', '/settings']) expect(matcher.test(path), path).toBe(true);
    for (const path of ['/api/proxies', '/login', '/_next/static/chunk.js', '/favicon.ico']) expect(matcher.test(path), path).toBe(false);
  });
});
