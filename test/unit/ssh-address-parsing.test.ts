import { describe, expect, it } from 'vitest';
import { knownHostsName, parseSshAddress } from '@/server/ssh';

describe('ssh addresses', () => {
  it.each([
    ['beelink.tail8c69c.ts.net:22', 'beelink.tail8c69c.ts.net', 22, 'beelink.tail8c69c.ts.net'],
    ['198.18.2.2:2222', '198.18.2.2', 2222, '[198.18.2.2]:2222'],
    ['Beelink:22', 'Beelink', 22, 'beelink'],
    ['beelink', 'beelink', 22, 'beelink'],
    ['[fd00::2]:2222', 'fd00::2', 2222, '[fd00::2]:2222'],
    ['[fd00::2]', 'fd00::2', 22, 'fd00::2'],
    ['fd00::2', 'fd00::2', 22, 'fd00::2'],
  ])('%s → host %s, port %i, known_hosts name %s', (address, host, port, name) => {
    const endpoint = parseSshAddress(address);
    expect(endpoint).toEqual({ host, port });
    expect(knownHostsName(endpoint)).toBe(name);
  });

  it.each([':22', 'beelink:', 'beelink:0', 'beelink:65536', 'beelink:2x', 'bee link:22'])('rejects %j', (address) => {
    expect(() => parseSshAddress(address)).toThrow(/invalid ssh address/);
  });
});
