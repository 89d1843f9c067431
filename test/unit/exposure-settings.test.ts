// APP_ORIGIN and TRUST_PROXY as the server reads them: bad values are refused naming the variable,
// origins are normalised, proxies match by address and network, and without APP_ORIGIN the own
// origins are the address a connection reached plus the loopback names.
import { describe, expect, it } from 'vitest';
import { defaultOrigins, exposureFromEnv } from '@/server/http/exposure';

describe('APP_ORIGIN and TRUST_PROXY', () => {
  it('normalise origins and match proxies by address and CIDR', () => {
    const exposure = exposureFromEnv({ APP_ORIGIN: ' https://Dash.Example.net/ , http://192.0.2.10:3000', TRUST_PROXY: '10.0.0.5, 192.168.1.0/24, fd00::/64' });
    expect(exposure.appOrigins).toEqual(['https://dash.example.net', 'http://192.0.2.10:3000']);
    for (const address of ['10.0.0.5', '192.168.1.77', 'fd00::1234']) expect(exposure.trustedProxies.has(address), address).toBe(true);
    for (const address of ['10.0.0.6', '192.168.2.1', 'fd01::1', 'not an address']) expect(exposure.trustedProxies.has(address), address).toBe(false);
  });

  it('default to the connection’s own origins and no trusted proxy', () => {
    const exposure = exposureFromEnv({});
    expect(exposure.appOrigins).toBeUndefined();
    expect(exposure.trustedProxies.has('127.0.0.1')).toBe(false);
    expect(defaultOrigins({ address: '192.168.1.5', port: 3000 })).toEqual([
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://[::1]:3000',
      'http://192.168.1.5:3000',
    ]);
    expect(defaultOrigins({ address: 'fe80::1%eth0', port: 80 })).toEqual(['http://localhost', 'http://127.0.0.1', 'http://[::1]']);
  });

  it.each([
    [{ APP_ORIGIN: 'dash.example.net' }, /^APP_ORIGIN: "dash.example.net" is not a URL/],
    [{ APP_ORIGIN: 'ftp://dash.example.net' }, /^APP_ORIGIN: .* must be an http or https origin/],
    [{ APP_ORIGIN: 'https://dash.example.net/app' }, /^APP_ORIGIN: .* must be an origin only/],
    [{ TRUST_PROXY: 'proxy.lan' }, /^TRUST_PROXY: "proxy.lan" is not an IP address or CIDR/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /^TRUST_PROXY: "10.0.0.0\/33" has an invalid prefix length/],
  ])('refuse %j naming the variable', (env, message) => {
    expect(() => exposureFromEnv(env)).toThrow(message);
  });
});
