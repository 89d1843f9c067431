// Each diagnosis step's verdict on its own: the status, the evidence in words, and for a failure the
// next thing to do; plus the port check against real loopback sockets (open, refused).
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  addressVerdict,
  agentVerdict,
  cloudInitVerdict,
  domainVerdict,
  egressVerdict,
  type Gathered,
  portVerdict,
  seedVerdict,
} from '@/server/control/diagnosis-steps';
import { checkPort } from '@/server/control/port-check';
import type { AddressAnswer, DomainFacts, SeedFacts } from '@/server/providers/instance-inspection';

const value = <T>(v: T): Gathered<T> => ({ kind: 'value', value: v });
const timedOut: Gathered<never> = { kind: 'error', message: 'no answer within 2000 ms', timedOut: true };
const broke: Gathered<never> = { kind: 'error', message: 'connection killed', timedOut: false };

describe('domain verdicts', () => {
  const base = { recorded: true, domain: 'proxy-1', host: 'lab1', providerType: 'kvm2' };
  it.each<[string, Gathered<DomainFacts>, string, string, RegExp | undefined]>([
    ['running', value({ defined: true, state: 'running', running: true }), 'pass', 'domain proxy-1 on host lab1 is running', undefined],
    ['undefined', value({ defined: false, running: false }), 'fail', 'domain proxy-1 on host lab1 is not defined', /creates it again/],
    ['paused', value({ defined: true, state: 'paused', running: false }), 'fail', 'domain proxy-1 on host lab1 is paused', /virsh resume proxy-1/],
    ['crashed', value({ defined: true, state: 'crashed', running: false }), 'fail', 'domain proxy-1 on host lab1 is crashed', /replaces a stopped domain/],
    ['unreadable in time', timedOut, 'unknown', 'reading the domain: no answer within 2000 ms', /again/],
    ['unreadable', broke, 'unknown', 'reading the domain failed: connection killed', /again/],
  ])('%s', (_what, facts, status, evidence, next) => {
    const verdict = domainVerdict({ ...base, facts });
    expect(verdict).toMatchObject({ status, evidence });
    if (next) expect(verdict.next).toMatch(next);
    else expect(verdict.next).toBeUndefined();
  });
});

describe('cloud-init verdicts', () => {
  // The server's boot capture holds the VM's console, so a plain `virsh console` is refused on the
  // host ("Active console session exists for this domain"): the advice must say --force, or the
  // dashboard's console.
  it.each<[string, string | undefined]>([
    ['no capture yet', undefined],
    ['a silent console', ''],
    ['a console without cloud-init', 'BdsDxe: loading Boot0001\nGRUB loading.\n'],
  ])('%s: the advice opens the console in a way the host accepts', (_what, consoleText) => {
    const verdict = cloudInitVerdict(consoleText, 'proxy-1');
    expect(verdict.next).toContain('virsh console --force proxy-1');
    expect(verdict.next).toContain("the dashboard's console");
    expect(verdict.next).not.toMatch(/virsh console proxy-1/);
  });
});

describe('seed verdicts', () => {
  it.each<[string, Gathered<SeedFacts>, string, string]>([
    ['attached', value({ volume: 'p-seed.iso', volumeExists: true, attachedAs: 'sda (cdrom)' }), 'pass', 'p-seed.iso attached as sda (cdrom)'],
    ['not on any disk', value({ volume: 'p-seed.iso', volumeExists: true }), 'fail', 'no disk of the domain carries the seed p-seed.iso'],
    [
      'gone from the pool',
      value({ volume: 'p-seed.iso', volumeExists: false, attachedAs: 'sda (cdrom)' }),
      'fail',
      'the domain names p-seed.iso as sda (cdrom), but the pool no longer holds it',
    ],
    ['unreadable', broke, 'unknown', 'reading the domain XML failed: connection killed'],
  ])('%s', (_what, facts, status, evidence) => {
    const verdict = seedVerdict(facts);
    expect(verdict).toMatchObject({ status, evidence });
    if (status === 'fail') expect(verdict.next).toContain('create it again');
  });
});

describe('agent and address verdicts', () => {
  const agentUp: AddressAnswer = { source: 'agent', addresses: ['127.0.0.1', '10.0.0.5'], ip: '10.0.0.5' };
  const agentDown: AddressAnswer = { source: 'agent', addresses: [], error: 'QEMU guest agent is not connected' };
  const arpUp: AddressAnswer = { source: 'arp', addresses: ['10.0.0.6'], ip: '10.0.0.6' };
  const arpLinkLocal: AddressAnswer = { source: 'arp', addresses: ['169.254.1.1'] };

  it("the agent passes when it answers, fails with the host's words when it does not, is unknown when the call broke", () => {
    expect(agentVerdict(value(agentUp))).toEqual({ status: 'pass', evidence: 'the agent answered with 2 addresses' });
    expect(agentVerdict(value(agentDown))).toMatchObject({
      status: 'fail',
      evidence: 'the host says: QEMU guest agent is not connected',
      next: expect.stringContaining('installGuestAgent'),
    });
    expect(agentVerdict(timedOut)).toMatchObject({ status: 'unknown', evidence: 'asking the guest agent: no answer within 2000 ms' });
  });

  it.each<[string, Gathered<AddressAnswer>, Gathered<AddressAnswer>, string | undefined, string, string]>([
    ['the agent first', value(agentUp), value(arpUp), undefined, 'pass', '10.0.0.5 from the guest agent'],
    ['ARP when the agent is down', value(agentDown), value(arpUp), undefined, 'pass', "10.0.0.6 from the host's ARP table"],
    [
      'a stale status',
      value(agentUp),
      value(arpUp),
      '10.0.0.4',
      'pass',
      "10.0.0.5 from the guest agent; the Proxy's status still says 10.0.0.4 (the reconciler's next pass updates it)",
    ],
    [
      'no usable address',
      value(agentDown),
      value(arpLinkLocal),
      undefined,
      'fail',
      'no usable IPv4 address (agent: QEMU guest agent is not connected; ARP: only 169.254.1.1)',
    ],
    ['both sources broke', timedOut, broke, undefined, 'unknown', 'no usable IPv4 address (agent: no answer within 2000 ms; ARP: connection killed)'],
  ])('%s', (_what, agent, arp, recorded, status, evidence) => {
    expect(addressVerdict({ agent, arp, recorded })).toMatchObject({ status, evidence });
  });
});

describe('port and egress verdicts', () => {
  const target = { host: '10.0.0.5', port: 3128 };
  it.each([
    [{ outcome: 'open' as const, latencyMs: 2.4 }, 'pass', '10.0.0.5:3128 accepted a TCP connection in 2 ms', undefined],
    [{ outcome: 'refused' as const, latencyMs: 1 }, 'fail', '10.0.0.5:3128 refused the connection: nothing listens on port 3128', /systemctl status squid/],
    [
      { outcome: 'timeout' as const, latencyMs: 1500, message: 'no answer within 1500 ms' },
      'fail',
      '10.0.0.5:3128: no answer within 1500 ms',
      /routes to the VM network/,
    ],
    [
      { outcome: 'unreachable' as const, latencyMs: 1, message: 'connect EHOSTUNREACH 10.0.0.5:3128' },
      'fail',
      '10.0.0.5:3128: connect EHOSTUNREACH 10.0.0.5:3128',
      /routes/,
    ],
  ])('%o', (result, status, evidence, next) => {
    const verdict = portVerdict(target, result);
    expect(verdict).toMatchObject({ status, evidence });
    if (next) expect(verdict.next).toMatch(next);
  });

  it('the egress IP passes with the echoed address and fails without one', () => {
    expect(egressVerdict({ healthy: true, reason: 'TargetReachable', message: '', latencyMs: 1, egressIP: '203.0.113.7' })).toEqual({
      status: 'pass',
      evidence: 'the IP-echo URL sees 203.0.113.7',
    });
    expect(egressVerdict({ healthy: true, reason: 'TargetReachable', message: '', latencyMs: 1 })).toMatchObject({
      status: 'fail',
      next: expect.stringContaining('IP_ECHO_URL'),
    });
  });
});

describe('the port check', () => {
  it('sees a listening loopback port open and a closed one refused', async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await expect(checkPort({ host: '127.0.0.1', port, timeoutMs: 2_000 })).resolves.toMatchObject({ outcome: 'open' });
    await new Promise((resolve) => server.close(resolve));
    await expect(checkPort({ host: '127.0.0.1', port, timeoutMs: 2_000 })).resolves.toMatchObject({
      outcome: 'refused',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });
});
