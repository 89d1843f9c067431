// The proxy URL the Gateway page shows: the configured host unless the gateway listens on every
// interface (then the browser's), IPv6 in brackets, username and token percent-encoded so that a
// URL parser gives back exactly what was chosen; a listed token's secret as a visible placeholder.
import { describe, expect, it } from 'vitest';
import {
  encodeUserinfo,
  gatewayHostFor,
  gatewayServer,
  gatewayUrl,
  isLoopbackHost,
  isWildcardHost,
  placeholderToken,
  secretPlaceholder,
} from '@/components/gateway/gateway-url';

describe('the host crawlers dial', () => {
  it.each([
    { configured: '0.0.0.0', browserHostname: 'dash.lan', host: 'dash.lan' },
    { configured: '::', browserHostname: '192.168.1.20', host: '192.168.1.20' },
    { configured: '[::]', browserHostname: 'dash.lan', host: 'dash.lan' },
    { configured: '', browserHostname: 'dash.lan', host: 'dash.lan' },
    { configured: '0.0.0.0', browserHostname: '[fd00::2]', host: '[fd00::2]' },
    { configured: '0.0.0.0', browserHostname: 'fd00::2', host: '[fd00::2]' },
    { configured: '192.168.1.20', browserHostname: 'dash.lan', host: '192.168.1.20' },
    { configured: 'gw.lan', browserHostname: 'localhost', host: 'gw.lan' },
    { configured: 'fd00::1', browserHostname: 'dash.lan', host: '[fd00::1]' },
    { configured: '127.0.0.1', browserHostname: 'dash.lan', host: '127.0.0.1' },
  ])('$configured seen from $browserHostname: $host', ({ configured, browserHostname, host }) => {
    expect(gatewayHostFor({ configured, browserHostname })).toBe(host);
  });

  it.each([
    ['0.0.0.0', true],
    ['::', true],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
  ])('%s listens on every interface: %s', (host, wildcard) => {
    expect(isWildcardHost(host)).toBe(wildcard);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['192.168.1.20', false],
    ['dash.lan', false],
    ['0.0.0.0', false],
  ])('%s is reachable from this machine only: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('the URL', () => {
  it('reads http://<username>:<token>@<host>:<port>', () => {
    expect(gatewayUrl({ host: 'dash.lan', port: 8888, username: 'crawler-set-eu-session-42', password: 'kvm2g_0123456789abcdef_Zm9v-YmFy_' })).toBe(
      'http://crawler-set-eu-session-42:kvm2g_0123456789abcdef_Zm9v-YmFy_@dash.lan:8888',
    );
    expect(gatewayServer({ host: '[fd00::1]', port: 8080 })).toBe('http://[fd00::1]:8080');
  });

  it('parses back to exactly the username and token, whatever they hold', () => {
    const username = `crawler's "eu"-label-example.com/team=a.b-session-42 é`;
    const password = `a:b@c/d?e#f%g'h"i j!(*)~`;
    const url = new URL(gatewayUrl({ host: '[fd00::1]', port: 8888, username, password }));
    expect(decodeURIComponent(url.username)).toBe(username);
    expect(decodeURIComponent(url.password)).toBe(password);
    expect(url.host).toBe('[fd00::1]:8888');
  });

  it('leaves no quote or parenthesis in the user part, so it fits in any snippet quotes', () => {
    expect(encodeUserinfo(`a'b"c(d)e*f!g`)).toBe('a%27b%22c%28d%29e%2Af%21g');
  });

  it("completes a listed token's prefix with a placeholder for its secret", () => {
    expect(placeholderToken('kvm2g_0123456789abcdef')).toBe(`kvm2g_0123456789abcdef_${secretPlaceholder}`);
    // The placeholder needs no encoding: it reads the same in the URL.
    expect(encodeUserinfo(secretPlaceholder)).toBe(secretPlaceholder);
  });
});
