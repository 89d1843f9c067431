// The gateway in front of real upstreams: three Debian Squids, each in a network namespace of its
// own standing in for a Proxy VM (harness/squid.ts), the GatewayServer on loopback with a fake
// token check and a trivial round-robin chooser (the real choice is unit-tested on its own), and the
// lab's image server on the VM link as the site crawlers fetch. Its /ip answers the address a
// request came from, so every answer says which Squid carried it, and none may say the gateway's.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseProxy } from '@/server/gateway/choose';
import { rendezvousRank } from '@/server/gateway/rendezvous';
import { TunnelRotation } from '@/server/gateway/rotation';
import { GatewayServer } from '@/server/gateway/server';
import { parseUsername } from '@/server/gateway/username';
import { createLogger } from '@/server/telemetry/logger';
import { getOverTunnel, proxyConnect, proxyGet, type ProxyEndpoint } from '@/test/fakes/gateway-client';
import { imageServerStats, loadLab, resetImageServerStats, type Lab } from './harness/lab';
import { type LabSquid, startSquid, stopSquids } from './harness/squid';

interface TunnelReport {
  proxy: string;
  bytesIn: number;
  bytesOut: number;
  result?: string;
}

describe('the gateway over real Squid upstreams', () => {
  let lab: Lab;
  let dir: string;
  let squids: LabSquid[] = [];
  let gateway: GatewayServer;
  let endpoint: ProxyEndpoint;
  let site: string;
  const tunnels = new Map<number, TunnelReport>();
  const failures: string[] = [];
  const rotation = new TunnelRotation();
  /** requests the image server answered for us, to compare with its own count */
  let fetched = 0;

  beforeAll(async () => {
    lab = loadLab();
    const guest = JSON.parse(readFileSync(join(lab.dir, 'guest.json'), 'utf8')) as { imageServerVmUrl: string };
    site = new URL(guest.imageServerVmUrl).host;
    dir = mkdtempSync(join(tmpdir(), 'kvm2lab-gateway-'));
    for (const index of [0, 1, 2]) squids.push(await startSquid(index, dir));
    gateway = new GatewayServer({
      host: '127.0.0.1',
      port: 0,
      logger: createLogger({ level: 'silent' }),
      authenticate: async (_username, password) => (password === 'lab-gateway-token' ? { tokenId: 'lab-token' } : undefined),
      // The real choice (username grammar, rendezvous for sessions, least-tunnels rotation) over
      // the Squids as Ready Proxies. Nothing marks a failed one suspect here (the runtime's
      // GatewayService does), so a dead Squid keeps coming up and every connection must retry.
      choose: ({ username, exclude }) => {
        const choice = chooseProxy({
          selector: parseUsername(username),
          proxies: squids.map((squid) => ({ name: squid.name, labels: {}, port: squid.port, status: { phase: 'Ready', ip: squid.address } })),
          sets: new Set(),
          tried: [...exclude],
          rotation,
          openTunnels: (proxy) => gateway.openTunnels(proxy),
        });
        return choice.ok
          ? { proxy: choice.proxy.name, upstreamUrl: choice.proxy.url }
          : { refusal: choice.refusal.message, status: choice.refusal.status, cause: choice.refusal.code };
      },
      observer: {
        opened: ({ connection, proxy }) => tunnels.set(connection, { proxy, bytesIn: 0, bytesOut: 0 }),
        progress: (connection, counts) => Object.assign(tunnels.get(connection) ?? {}, counts),
        closed: (connection, final) => Object.assign(tunnels.get(connection) ?? {}, final),
      },
      failed: (proxy, cause) => failures.push(`${proxy} ${cause}`),
    });
    await gateway.start();
    endpoint = { host: '127.0.0.1', port: gateway.port, credentials: 'crawler:lab-gateway-token' };
    await resetImageServerStats(lab);
  });

  afterAll(async () => {
    await gateway?.stop();
    await stopSquids(squids, dir);
  });

  const squidAddresses = () => squids.map((squid) => squid.address);

  const as = (username: string): ProxyEndpoint => ({ ...endpoint, credentials: `${username}:lab-gateway-token` });

  async function ipThroughGateway(through = endpoint): Promise<string> {
    const answer = await proxyGet(through, `http://${site}/ip`);
    expect(answer.status, answer.body).toBe(200);
    fetched += 1;
    return answer.body.trim();
  }

  async function ipThroughTunnel(through = endpoint): Promise<{ address: string; clientBytes: number }> {
    const tunnel = await proxyConnect(through, site);
    expect(tunnel.status, tunnel.body).toBe(200);
    const raw = await getOverTunnel(tunnel.socket, site, '/ip');
    expect(raw).toMatch(/^HTTP\/1\.1 200/);
    fetched += 1;
    return { address: raw.slice(raw.indexOf('\r\n\r\n') + 4).trim(), clientBytes: tunnel.socket.bytesRead };
  }

  it('carries plain GETs through each Squid in turn, never from its own address', async () => {
    const seen = [];
    for (let i = 0; i < 6; i += 1) seen.push(await ipThroughGateway());
    expect(new Set(seen)).toEqual(new Set(squidAddresses()));
  });

  it('opens CONNECT tunnels through the Squids, and counts each tunnel’s bytes exactly', async () => {
    const before = new Set(tunnels.keys());
    const { address, clientBytes } = await ipThroughTunnel();
    expect(squidAddresses()).toContain(address);
    const [id] = [...tunnels.keys()].filter((key) => !before.has(key));
    await expect.poll(() => tunnels.get(id!)?.result, { timeout: 10_000 }).toBe('ok');
    // Squid's "HTTP/1.1 200 Connection established" and proxy-chain's are the same length, so the
    // tunnel's bytes in are exactly what the crawler read.
    expect(tunnels.get(id!)).toMatchObject({ bytesIn: clientBytes, result: 'ok' });
  });

  it.each([
    ['no credentials', undefined],
    ['a wrong token', 'crawler:not-the-token'],
  ])('refuses %s with 407 and fetches nothing', async (_case, credentials) => {
    const plain = await proxyGet({ ...endpoint, credentials }, `http://${site}/ip`);
    expect(plain.status).toBe(407);
    expect(plain.headers['proxy-authenticate']).toMatch(/^Basic realm=/);
    const tunnel = await proxyConnect({ ...endpoint, credentials }, site);
    expect(tunnel.status).toBe(407);
    expect((await imageServerStats(lab))['/ip']).toBe(fetched);
  });

  const byName = (name: string | undefined) => squids.find((squid) => squid.name === name) as LabSquid;
  const homeOf = (session: string) => byName(rendezvousRank(session, squidNames())[0]);
  const squidNames = () => squids.map((squid) => squid.name);

  it('keeps a session on the one Squid rendezvous hashing gives it', async () => {
    for (const session of ['sticky-1', 'sticky-2']) {
      const answers = [];
      for (let i = 0; i < 3; i += 1) {
        answers.push(await ipThroughGateway(as(`crawler-session-${session}`)), (await ipThroughTunnel(as(`crawler-session-${session}`))).address);
      }
      expect(new Set(answers), session).toEqual(new Set([homeOf(session).address]));
    }
  });

  it('keeps every new connection working when a Squid is killed: its sessions move, no other does', async () => {
    const session = 'sticky-1';
    const [victimName, nextName] = rendezvousRank(session, squidNames());
    const victim = byName(victimName);
    const other = ['other-1', 'other-2', 'other-3', 'other-4', 'other-5'].find((id) => homeOf(id).name !== victim.name) as string;
    const lastProxy = () => [...tunnels.values()].at(-1)?.proxy;
    // A tunnel through the victim, and one through a survivor that must not notice the kill.
    const victimTunnel = await proxyConnect(as(`crawler-session-${session}`), site);
    expect(lastProxy()).toBe(victim.name);
    const survivorTunnel = await proxyConnect(as(`crawler-session-${other}`), site);
    expect(lastProxy()).toBe(homeOf(other).name);
    const victimClosed = new Promise<void>((resolve) => victimTunnel.socket.once('close', () => resolve()));
    victimTunnel.socket.on('error', () => undefined);
    victim.process.kill('SIGKILL');
    await new Promise<void>((resolve) =>
      victim.process.exitCode !== null || victim.process.signalCode !== null ? resolve() : victim.process.once('exit', () => resolve()),
    );
    const survivors = squids.filter((squid) => squid !== victim).map((squid) => squid.address);
    const rotated = [];
    for (let i = 0; i < 6; i += 1) rotated.push(await ipThroughGateway(), (await ipThroughTunnel()).address);
    expect(rotated.filter((address) => !survivors.includes(address))).toEqual([]);
    const moved = [];
    for (let i = 0; i < 2; i += 1) {
      moved.push(await ipThroughGateway(as(`crawler-session-${session}`)), (await ipThroughTunnel(as(`crawler-session-${session}`))).address);
    }
    expect(new Set(moved)).toEqual(new Set([byName(nextName).address]));
    expect(await ipThroughGateway(as(`crawler-session-${other}`))).toBe(homeOf(other).address);
    // Every connection of the session tried the victim first; rotation kept offering it too.
    expect(failures.length).toBeGreaterThanOrEqual(4);
    expect(new Set(failures)).toEqual(new Set([`${victim.name} ECONNREFUSED`]));
    await victimClosed;
    const raw = await getOverTunnel(survivorTunnel.socket, site, '/ip');
    fetched += 1;
    expect(raw).toMatch(/^HTTP\/1\.1 200/);
  });

  it('never reached the image server except through a Squid', async () => {
    expect((await imageServerStats(lab))['/ip']).toBe(fetched);
    // Every answer above was checked against the Squids' addresses; the count shows there was no other.
    expect(fetched).toBeGreaterThan(30);
  });

  it('holds no socket once the crawlers are done', async () => {
    await expect
      .poll(() => [gateway.clientConnections(), ...squids.map((squid) => gateway.openTunnels(squid.name))], { timeout: 10_000 })
      .toEqual([0, 0, 0, 0]);
    expect([...tunnels.values()].filter((tunnel) => tunnel.result === undefined)).toEqual([]);
  });
});
