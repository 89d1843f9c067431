// GATEWAY_PORT, GATEWAY_HOST and GATEWAY_DRAIN as the server reads them: defaults (8888, the
// dashboard's own bind address, 30 s), 0 turns the gateway off, and a bad value stops the start
// with a message naming the variable.
import { describe, expect, it } from 'vitest';
import { settingsFromEnv } from '@/server/control/settings';

describe('gateway settings', () => {
  it('default to port 8888 on the dashboard’s bind address with a 30 s drain', () => {
    expect(settingsFromEnv({})).toMatchObject({ gatewayPort: 8888, gatewayHost: '127.0.0.1', gatewayDrainMs: 30_000 });
    expect(settingsFromEnv({ HOST: '192.168.1.5' })).toMatchObject({ gatewayHost: '192.168.1.5' });
  });

  it('take explicit values, and GATEWAY_PORT=0 turns the gateway off', () => {
    expect(settingsFromEnv({ HOST: '127.0.0.1', GATEWAY_HOST: '0.0.0.0', GATEWAY_PORT: '3128', GATEWAY_DRAIN: '2m' })).toMatchObject({
      gatewayHost: '0.0.0.0',
      gatewayPort: 3128,
      gatewayDrainMs: 120_000,
    });
    expect(settingsFromEnv({ GATEWAY_PORT: '0' }).gatewayPort).toBe(0);
  });

  it.each([
    [{ GATEWAY_PORT: 'eighty' }, /^GATEWAY_PORT: "eighty" is not a port \(an integer from 0 to 65535; 0 turns the gateway off\)/],
    [{ GATEWAY_PORT: '65536' }, /^GATEWAY_PORT: "65536" is not a port/],
    [{ GATEWAY_PORT: '-1' }, /^GATEWAY_PORT: "-1" is not a port/],
    [{ GATEWAY_PORT: '3000', PORT: '3000' }, /^GATEWAY_PORT: 3000 is the dashboard's own PORT/],
    [{ GATEWAY_HOST: 'http://0.0.0.0' }, /^GATEWAY_HOST: "http:\/\/0.0.0.0" is not an address or host name to listen on/],
    [{ GATEWAY_DRAIN: 'soon' }, /^GATEWAY_DRAIN: "soon" is not a duration/],
  ])('refuse %j naming the variable', (env, message) => {
    expect(() => settingsFromEnv(env)).toThrow(message);
  });
});
