// Login limits among neighbours: a home LAN shares one IPv6 /64, so free attempts count per full
// address, and a much higher ceiling per /64 still stops one host that walks its network's
// addresses. Behind a reverse proxy on this machine that TRUST_PROXY does not name, every client
// shares the proxy's address: the server says so once.
import { describe, expect, it } from 'vitest';
import { LoginRateLimiter, type LoginLimits } from '@/server/auth/rate-limit';
import { connectionStamp } from '@/server/http/connection';
import { exposureFromEnv } from '@/server/http/exposure';
import { warnUntrustedForwarding } from '@/server/http/forwarding-warning';

const limits: LoginLimits = { freeAttempts: 5, networkFreeAttempts: 50, backoffBaseMs: 1_000, backoffCapMs: 8_000, forgetAfterMs: 3_600_000 };
let nowMs = Date.parse('2026-05-01T10:00:00Z');
const now = () => nowMs;

function outcome(limiter: LoginRateLimiter, client: string): 'granted' | 'refused' {
  const reservation = limiter.reserve(client);
  if ('retryAfterSeconds' in reservation) return 'refused';
  reservation.attempt.failed();
  return 'granted';
}

describe('login limit per address, ceiling per /64', () => {
  it('two addresses in one /64 do not lock each other out after 5 wrong passwords each', () => {
    const limiter = new LoginRateLimiter(limits, now);
    for (let i = 0; i < 5; i++) expect(outcome(limiter, '2001:db8:1:2::a')).toBe('granted');
    expect(outcome(limiter, '2001:db8:1:2::a')).toBe('refused');
    for (let i = 0; i < 5; i++) expect(outcome(limiter, '2001:db8:1:2::b')).toBe('granted');
    expect(outcome(limiter, '2001:db8:1:2::b')).toBe('refused');
    // the same address however it is spelled
    expect(outcome(limiter, '2001:0db8:0001:0002:0000:0000:0000:000a')).toBe('refused');
    const reservation = limiter.reserve('2001:db8:1:2::c');
    expect('attempt' in reservation).toBe(true);
  });

  it('the /64 ceiling still holds against one host walking its network', () => {
    const limiter = new LoginRateLimiter(limits, now);
    for (let host = 1; host <= 10; host++) {
      for (let i = 0; i < 5; i++) expect(outcome(limiter, `2001:db8:1:2::${host.toString(16)}`)).toBe('granted');
    }
    expect(outcome(limiter, '2001:db8:1:2::ff')).toBe('refused');
    expect(outcome(limiter, '2001:db8:1:3::1'), 'another /64').toBe('granted');
  });

  it('IPv4 counts per full address: one neighbour on the LAN does not lock out another', () => {
    const limiter = new LoginRateLimiter(limits, now);
    for (let i = 0; i < 5; i++) outcome(limiter, '192.168.1.20');
    expect(outcome(limiter, '192.168.1.20')).toBe('refused');
    expect(outcome(limiter, '192.168.1.21')).toBe('granted');
  });
});

describe('X-Forwarded-For from this machine without TRUST_PROXY', () => {
  const request = (peer: string, forwardedFor?: string) =>
    new Request('http://127.0.0.1:3000/api/auth/login', {
      method: 'POST',
      headers: {
        'x-kvm2-connection': connectionStamp({ peer, localAddress: '127.0.0.1', localPort: 3000 }),
        ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
      },
    });
  const recorder = () => {
    const lines: string[] = [];
    return { lines, log: { warn: (_fields: object, message: string) => void lines.push(message) } };
  };

  it('warns once, naming TRUST_PROXY, when loopback requests carry a forwarded client', () => {
    const { lines, log } = recorder();
    const state = { warned: false };
    for (const forwarded of ['203.0.113.7', '198.51.100.2, 203.0.113.7']) {
      warnUntrustedForwarding({ request: request('127.0.0.1', forwarded), exposure: exposureFromEnv({}), log, state });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/X-Forwarded-For.*TRUST_PROXY is not set.*TRUST_PROXY=127\.0\.0\.1/);
  });

  it.each([
    ['a client elsewhere sending the header', '192.168.1.9', '203.0.113.7', {}],
    ['no header', '127.0.0.1', undefined, {}],
    ['the header naming this machine only (next start adds the peer itself)', '::1', '::1', {}],
    ['TRUST_PROXY set', '127.0.0.1', '203.0.113.7', { TRUST_PROXY: '127.0.0.1' }],
  ])('stays quiet for %s', (_case, peer, forwarded, env) => {
    const { lines, log } = recorder();
    warnUntrustedForwarding({ request: request(peer, forwarded), exposure: exposureFromEnv(env), log, state: { warned: false } });
    expect(lines).toEqual([]);
  });
});
