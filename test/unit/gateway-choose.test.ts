import { describe, expect, it } from 'vitest';
import type { ProxyPhase } from '@/lib/proxy-spec';
import { chooseProxy, type ChooseRequest, type GatewayProxy, maxAttempts } from '@/server/gateway/choose';
import { rendezvousRank } from '@/server/gateway/rendezvous';
import { TunnelRotation } from '@/server/gateway/rotation';
import { usernameRefusal } from '@/server/gateway/refusals';
import { type GatewayUsernameError, parseUsername } from '@/server/gateway/username';

let nextIp = 10;
const proxy = (name: string, options: { phase?: ProxyPhase; labels?: Record<string, string>; ip?: string; port?: number } = {}): GatewayProxy => ({
  name,
  labels: options.labels ?? {},
  port: options.port ?? 3128,
  status: { phase: options.phase ?? 'Ready', ...(options.phase === 'Pending' ? {} : { ip: options.ip ?? `10.0.0.${nextIp++}` }) },
});
const member = (set: string, suffix: string, labels: Record<string, string> = {}, phase?: ProxyPhase) =>
  proxy(`${set}-${suffix}`, { labels: { ...labels, proxyset: set }, ...(phase ? { phase } : {}) });

const fleet = [
  member('eu', 'aaaa1', { tier: 'fast' }),
  member('eu', 'aaaa2', { tier: 'slow' }),
  member('eu', 'aaaa3', { tier: 'fast' }),
  member('us', 'bbbb1', { tier: 'fast' }),
  proxy('static1', { labels: { tier: 'fast' } }),
  member('eu', 'aaaa4', { tier: 'fast' }, 'Provisioning'),
];

const request = (username: string, more: Partial<ChooseRequest> = {}): ChooseRequest => ({
  selector: parseUsername(username),
  proxies: fleet,
  sets: new Set(['eu', 'us', 'empty']),
  rotation: new TunnelRotation(),
  openTunnels: () => 0,
  ...more,
});
const chosen = (req: ChooseRequest) => {
  const choice = chooseProxy(req);
  if (!choice.ok) throw new Error(`refused: ${choice.refusal.message}`);
  return choice.proxy;
};
const refused = (req: ChooseRequest) => {
  const choice = chooseProxy(req);
  if (choice.ok) throw new Error(`chose ${choice.proxy.name}`);
  return choice.refusal;
};
const readyNames = fleet.filter((p) => p.status.phase === 'Ready').map((p) => p.name);

describe('choosing the upstream proxy', () => {
  it('gives a Ready proxy with its upstream URL as the discovery API builds it', () => {
    const only = proxy('solo', { ip: '192.168.1.7', port: 8080 });
    expect(chosen(request('c', { proxies: [only] }))).toEqual({ name: 'solo', url: 'http://192.168.1.7:8080', attempt: 1 });
    const v6 = proxy('six', { ip: 'fd00::7' });
    expect(chosen(request('c', { proxies: [v6] })).url).toBe('http://[fd00::7]:3128');
  });

  it('rotates any username over every Ready proxy, members and others, never one that is not Ready', () => {
    const rotation = new TunnelRotation();
    const picks = new Set(Array.from({ length: 10 }, () => chosen(request('crawler1', { rotation })).name));
    expect([...picks].sort()).toEqual([...readyNames].sort());
  });

  it('prefers the proxy with the fewest open tunnels', () => {
    const open: Record<string, number> = { 'eu-aaaa1': 4, 'eu-aaaa2': 1, 'eu-aaaa3': 2 };
    expect(chosen(request('c-set-eu', { openTunnels: (name) => open[name] ?? 0 })).name).toBe('eu-aaaa2');
  });

  it('narrows the pool by set and labels together', () => {
    const rotation = new TunnelRotation();
    const picks = new Set(Array.from({ length: 6 }, () => chosen(request('c-set-eu-label-tier=fast', { rotation })).name));
    expect([...picks].sort()).toEqual(['eu-aaaa1', 'eu-aaaa3']);
    expect(chosen(request('c-label-tier=slow')).name).toBe('eu-aaaa2');
  });

  it('sticks a session to the highest-weight eligible proxy, the same on every call and replica', () => {
    const pool = ['eu-aaaa1', 'eu-aaaa2', 'eu-aaaa3'];
    const expected = rendezvousRank('abc123', pool)[0];
    for (let i = 0; i < 3; i++) expect(chosen(request('crawler1-set-eu-session-abc123', { rotation: new TunnelRotation() })).name).toBe(expected);
    // load does not move a sticky session
    expect(chosen(request('crawler1-set-eu-session-abc123', { openTunnels: (name) => (name === expected ? 100 : 0) })).name).toBe(expected);
  });

  it('pins -proxy to that proxy', () => {
    expect(chosen(request('c-proxy-us-bbbb1')).name).toBe('us-bbbb1');
  });
});

describe('retries within one connection', () => {
  it(`allows ${maxAttempts} attempts in all, never the same proxy twice`, () => {
    const rotation = new TunnelRotation();
    const tried: string[] = [];
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const next = chosen(request('c', { rotation, tried, openTunnels: () => 0 }));
      expect(next.attempt).toBe(attempt);
      expect(tried).not.toContain(next.name);
      tried.push(next.name);
    }
    const last = refused(request('c', { rotation, tried }));
    expect(last).toMatchObject({ code: 'upstream-failed', status: 502, tried });
    expect(last.message).toBe(`${maxAttempts} attempts failed (${tried.join(', ')}): no more are tried`);
  });

  it('never retries the proxy that failed, even when it has the fewest tunnels', () => {
    const open: Record<string, number> = { 'eu-aaaa1': 0, 'eu-aaaa2': 5, 'eu-aaaa3': 5 };
    expect(chosen(request('c-set-eu', { tried: ['eu-aaaa1'], openTunnels: (name) => open[name] ?? 0 })).name).not.toBe('eu-aaaa1');
  });

  it('moves a retried sticky session to its next-highest weight, then the one after', () => {
    const rank = rendezvousRank('abc123', ['eu-aaaa1', 'eu-aaaa2', 'eu-aaaa3']);
    expect(chosen(request('c-set-eu-session-abc123', { tried: rank.slice(0, 1) })).name).toBe(rank[1]);
    expect(chosen(request('c-set-eu-session-abc123', { tried: rank.slice(0, 2) })).name).toBe(rank[2]);
  });

  it('says which proxies failed when no other is eligible', () => {
    const refusal = refused(request('c-set-eu-label-tier=fast', { tried: ['eu-aaaa1', 'eu-aaaa3'] }));
    expect(refusal).toMatchObject({ code: 'upstream-failed', status: 502, tried: ['eu-aaaa1', 'eu-aaaa3'] });
    expect(refusal.message).toBe('eu-aaaa1, eu-aaaa3 failed: no other Ready proxy for set "eu", label tier=fast');
  });

  it('does not retry a pinned proxy elsewhere', () => {
    const refusal = refused(request('c-proxy-us-bbbb1', { tried: ['us-bbbb1'] }));
    expect(refusal).toMatchObject({ code: 'upstream-failed', status: 502, proxy: 'us-bbbb1' });
    expect(refusal.message).toBe('proxy "us-bbbb1" failed: -proxy pins it, so no other is tried');
  });
});

describe('suspect and draining proxies take no new tunnels', () => {
  it('moves a session off its suspect proxy to the next-highest weight, and back once it is clear', () => {
    const rank = rendezvousRank('abc123', ['eu-aaaa1', 'eu-aaaa2', 'eu-aaaa3']);
    const unavailable = new Map([[rank[0] as string, 'suspect' as const]]);
    expect(chosen(request('c-set-eu-session-abc123', { unavailable })).name).toBe(rank[1]);
    expect(chosen(request('c-set-eu-session-abc123')).name).toBe(rank[0]);
  });

  it('never rotates onto a draining proxy', () => {
    const unavailable = new Map([
      ['eu-aaaa1', 'draining' as const],
      ['eu-aaaa2', 'draining' as const],
    ]);
    const rotation = new TunnelRotation();
    for (let i = 0; i < 4; i++) expect(chosen(request('c-set-eu', { unavailable, rotation })).name).toBe('eu-aaaa3');
  });

  it.each([
    ['suspect', 'proxy "us-bbbb1" not Ready: suspect (a connection through it just failed; the monitor is probing it)'],
    ['draining', 'proxy "us-bbbb1" not Ready: draining (being deleted or replaced)'],
  ] as const)('refuses a pinned %s proxy, saying so', (why, message) => {
    const refusal = refused(request('c-proxy-us-bbbb1', { unavailable: new Map([['us-bbbb1', why]]) }));
    expect(refusal).toMatchObject({ code: 'proxy-not-ready', status: 503, proxy: 'us-bbbb1', message });
  });
});

describe('refusals name why nothing was chosen', () => {
  it.each([
    ['c-set-asia', { code: 'set-unknown', status: 400, set: 'asia', message: 'set "asia" unknown: no ProxySet has that name' }],
    ['c-proxy-nope', { code: 'proxy-unknown', status: 400, proxy: 'nope', message: 'proxy "nope" unknown: no Proxy has that name' }],
    ['c-proxy-eu-aaaa4', { code: 'proxy-not-ready', status: 503, proxy: 'eu-aaaa4', message: 'proxy "eu-aaaa4" not Ready (Provisioning)' }],
    ['c-set-empty', { code: 'no-ready-proxy', status: 503, set: 'empty', message: 'no Ready proxy for set "empty": no Proxy matches' }],
    ['c-set-us-label-tier=slow', { code: 'no-ready-proxy', status: 503, message: 'no Ready proxy for set "us", label tier=slow: no Proxy matches' }],
    [
      'c-label-tier=fast-label-disk=ssd',
      { code: 'no-ready-proxy', status: 503, message: 'no Ready proxy for label tier=fast, label disk=ssd: no Proxy matches' },
    ],
  ])('%j', (username, expected) => {
    expect(refused(request(username))).toMatchObject(expected);
  });

  it('says how many match when none of them is Ready', () => {
    const proxies = [member('eu', 'aaaa1', {}, 'Provisioning'), member('eu', 'aaaa2', {}, 'Failed'), member('eu', 'aaaa3', {}, 'Pending')];
    expect(refused(request('c-set-eu-session-s1', { proxies })).message).toBe('no Ready proxy for set "eu": 3 match, none Ready');
    expect(refused(request('c', { proxies: [] })).message).toBe('no Ready proxy for any proxy: no Proxy matches');
  });

  it('says which Ready ones are suspect or draining', () => {
    const unavailable = new Map([
      ['eu-aaaa1', 'suspect' as const],
      ['eu-aaaa3', 'draining' as const],
    ]);
    expect(refused(request('c-set-eu-label-tier=fast', { unavailable })).message).toBe(
      'no Ready proxy for set "eu", label tier=fast: 2 Ready, but suspect: eu-aaaa1; draining: eu-aaaa3',
    );
  });

  it('knows a set whose record is gone while its members are still there', () => {
    expect(chosen(request('c-set-us', { sets: new Set() })).name).toBe('us-bbbb1');
  });

  it('treats a Proxy Ready without an address (never in a view) as not Ready', () => {
    const odd: GatewayProxy = { name: 'odd', labels: {}, port: 3128, status: { phase: 'Ready' } };
    expect(refused(request('c-proxy-odd', { proxies: [odd] }))).toMatchObject({ code: 'proxy-not-ready', message: 'proxy "odd" not Ready (no address yet)' });
  });
});

describe('a bad username is refused the same way', () => {
  it('turns the grammar error into a 400 refusal with its message', () => {
    let error: unknown;
    try {
      parseUsername('c-set-');
    } catch (err) {
      error = err;
    }
    expect(usernameRefusal(error as GatewayUsernameError)).toEqual({ code: 'username-invalid', status: 400, message: 'username: -set needs a name' });
  });
});
