// The gateway's network server over loopback: real sockets, proxy-chain in front, and small
// proxy-chain servers in direct mode standing in for the fleet's Squids (the lab test runs real
// Squids in namespaces of their own). The choice and the token check are injected fakes.
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayServer, type GatewayChoice, type GatewayRefusal } from '@/server/gateway/server';
import { getOverTunnel, proxyConnect, proxyGet } from '@/test/fakes/gateway-client';
import { captureLogs } from '@/test/support/log-capture';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** The site crawlers fetch: answers with a fixed body, or `size` bytes at /big?size=N. */
async function startTarget() {
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    seen.push(request.url ?? '');
    const size = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('size') ?? 0);
    response.end(size > 0 ? Buffer.alloc(size, 'x') : 'hello from the target');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { seen, address: `127.0.0.1:${(server.address() as net.AddressInfo).port}` };
}

/** A fleet proxy stand-in: an open forward proxy on loopback that records what it carried. */
async function startUpstream(name: string) {
  const carried: string[] = [];
  const server = new ProxyChainServer({
    port: 0,
    host: '127.0.0.1',
    prepareRequestFunction: ({ hostname, port }) => {
      carried.push(`${hostname}:${port}`);
      return {};
    },
  });
  await server.listen();
  cleanups.push(() => server.close(true));
  return { name, carried, url: `http://127.0.0.1:${server.port}`, server };
}

/** An address where nothing listens: connecting is refused. */
async function deadUpstream(name: string) {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return { name, url: `http://127.0.0.1:${port}` };
}

/** An upstream that accepts connections and never answers: what is still open of them. */
async function silentUpstream(name: string) {
  const open = new Set<net.Socket>();
  const accepted: net.Socket[] = [];
  const server = net.createServer((socket) => {
    accepted.push(socket);
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { name, open, accepted, url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` };
}

type Upstream = { name: string; url: string };

interface GatewayFixture {
  upstreams: Upstream[];
  refuse?: GatewayChoice;
  statsIntervalMs?: number;
  /** held until the test lets the token check answer */
  authGate?: Promise<void>;
  loginLimits?: { freeAttempts: number; networkFreeAttempts: number; backoffBaseMs: number; backoffCapMs: number; forgetAfterMs: number };
}

async function startGateway(fixture: GatewayFixture) {
  const log = captureLogs();
  const chooseCalls: Array<{ username: string; exclude: string[] }> = [];
  const authCalls: Array<{ username: string; clientAddress: string }> = [];
  const progress: Array<{ connection: number; bytesIn: number; bytesOut: number }> = [];
  const finals: Array<{ connection: number; bytesIn: number; bytesOut: number; result: string }> = [];
  const events: string[] = [];
  const refusals: GatewayRefusal[] = [];
  const gateway = new GatewayServer({
    host: '127.0.0.1',
    port: 0,
    logger: log.logger,
    authenticate: async (username, password, clientAddress) => {
      authCalls.push({ username, clientAddress });
      await fixture.authGate;
      return password === 'good-token' ? { tokenId: 'tok-1' } : undefined;
    },
    choose: ({ username, exclude }) => {
      chooseCalls.push({ username, exclude: [...exclude] });
      if (fixture.refuse) return fixture.refuse;
      const next = fixture.upstreams.find((upstream) => !exclude.has(upstream.name));
      return next ? { proxy: next.name, upstreamUrl: next.url } : { refusal: 'no Ready proxy for this selector', status: 503 };
    },
    observer: {
      opened: ({ connection, proxy, token }) => events.push(`opened ${connection} ${proxy} ${token}`),
      progress: (connection, counts) => progress.push({ connection, ...counts }),
      closed: (connection, final) => {
        finals.push({ connection, ...final });
        events.push(`closed ${connection} ${final.result}`);
      },
    },
    failed: (proxy, cause) => events.push(`failed ${proxy} ${cause}`),
    refused: (refusal) => refusals.push(refusal),
    statsIntervalMs: fixture.statsIntervalMs,
    loginLimits: fixture.loginLimits,
  });
  await gateway.start();
  cleanups.push(() => gateway.stop());
  const endpoint = { host: '127.0.0.1', port: gateway.port, credentials: 'crawler-session-1:good-token' };
  return { gateway, endpoint, log, chooseCalls, authCalls, progress, finals, events, refusals };
}

describe('gateway server', () => {
  it('carries a plain GET through the upstream choose picked, never directly', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { endpoint, chooseCalls } = await startGateway({ upstreams: [a] });
    const answer = await proxyGet(endpoint, `http://${target.address}/page`);
    expect(answer).toMatchObject({ status: 200, body: 'hello from the target' });
    expect(a.carried).toEqual([target.address]);
    expect(chooseCalls).toEqual([{ username: 'crawler-session-1', exclude: [] }]);
  });

  it('opens a CONNECT tunnel through the chosen upstream', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { endpoint } = await startGateway({ upstreams: [a] });
    const tunnel = await proxyConnect(endpoint, target.address);
    expect(tunnel.status).toBe(200);
    const raw = await getOverTunnel(tunnel.socket, target.address, '/over-tunnel');
    expect(raw).toMatch(/^HTTP\/1\.1 200/);
    expect(raw).toContain('hello from the target');
    expect(a.carried).toEqual([target.address]);
    expect(target.seen).toEqual(['/over-tunnel']);
  });

  it.each([
    ['no Proxy-Authorization', undefined],
    ['a wrong token', 'crawler:wrong-token'],
  ])('answers 407 with Proxy-Authenticate to %s, logging the client address', async (_case, credentials) => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { endpoint, log, chooseCalls, refusals } = await startGateway({ upstreams: [a] });
    const plain = await proxyGet({ ...endpoint, credentials }, `http://${target.address}/`);
    expect(plain.status).toBe(407);
    expect(plain.headers['proxy-authenticate']).toMatch(/^Basic realm=/);
    const tunnel = await proxyConnect({ ...endpoint, credentials }, target.address);
    expect(tunnel.status).toBe(407);
    expect(tunnel.headers['proxy-authenticate']).toMatch(/^Basic realm=/);
    expect(target.seen).toEqual([]);
    expect(a.carried).toEqual([]);
    expect(chooseCalls).toEqual([]);
    const lines = log.lines.filter((line) => line.msg === 'gateway refused a client');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ client: '127.0.0.1', status: 407 });
    expect(refusals.map((refusal) => refusal.cause)).toEqual(credentials ? ['bad-token', 'bad-token'] : ['no-credentials', 'no-credentials']);
    expect(JSON.stringify(log.lines)).not.toContain('wrong-token');
  });

  it('rate-limits refused clients like the login: 429 with Retry-After, token not even checked', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const limits = { freeAttempts: 2, networkFreeAttempts: 50, backoffBaseMs: 60_000, backoffCapMs: 60_000, forgetAfterMs: 3_600_000 };
    const { endpoint, authCalls } = await startGateway({ upstreams: [a], loginLimits: limits });
    const wrong = { ...endpoint, credentials: 'crawler:wrong-token' };
    expect((await proxyGet(wrong, `http://${target.address}/`)).status).toBe(407);
    expect((await proxyGet(wrong, `http://${target.address}/`)).status).toBe(407);
    const limited = await proxyGet(endpoint, `http://${target.address}/`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(authCalls).toHaveLength(2);
    expect(target.seen).toEqual([]);
  });

  it('answers a refusal of choose with its status and X-Gateway-Error, connecting nowhere', async () => {
    const target = await startTarget();
    const { endpoint } = await startGateway({ upstreams: [], refuse: { refusal: 'set "eu" unknown', status: 404 } });
    const plain = await proxyGet(endpoint, `http://${target.address}/`);
    expect(plain.status).toBe(404);
    expect(plain.headers['x-gateway-error']).toBe('set "eu" unknown');
    expect(plain.body).toContain('set "eu" unknown');
    const tunnel = await proxyConnect(endpoint, target.address);
    expect(tunnel.status).toBe(404);
    expect(tunnel.headers['x-gateway-error']).toBe('set "eu" unknown');
    expect(target.seen).toEqual([]);
  });

  it('retries on another eligible upstream when the chosen one refuses the connection', async () => {
    const target = await startTarget();
    const dead = await deadUpstream('proxy-dead');
    const b = await startUpstream('proxy-b');
    const { endpoint, chooseCalls, events } = await startGateway({ upstreams: [dead, b] });
    const answer = await proxyGet(endpoint, `http://${target.address}/`);
    expect(answer.status).toBe(200);
    const tunnel = await proxyConnect(endpoint, target.address);
    expect(tunnel.status).toBe(200);
    tunnel.socket.destroy();
    expect(chooseCalls.map((call) => call.exclude)).toEqual([[], ['proxy-dead'], [], ['proxy-dead']]);
    expect(events.filter((event) => event.startsWith('failed'))).toEqual(['failed proxy-dead ECONNREFUSED', 'failed proxy-dead ECONNREFUSED']);
    expect(b.carried).toEqual([target.address, target.address]);
  });

  it('gives up after two retries with 502 naming the proxies tried, not a hang', async () => {
    const target = await startTarget();
    const dead = await Promise.all(['d1', 'd2', 'd3', 'd4'].map((name) => deadUpstream(name)));
    const { endpoint, chooseCalls } = await startGateway({ upstreams: dead });
    const plain = await proxyGet(endpoint, `http://${target.address}/`);
    expect(plain.status).toBe(502);
    expect(plain.headers['x-gateway-error']).toBe('d1 (ECONNREFUSED), d2 (ECONNREFUSED), d3 (ECONNREFUSED) failed: no more proxies are tried');
    const tunnel = await proxyConnect(endpoint, target.address);
    expect(tunnel.status).toBe(502);
    expect(tunnel.headers['x-gateway-error']).toMatch(/^d1 \(ECONNREFUSED\), d2/);
    expect(chooseCalls.map((call) => call.exclude)).toEqual([[], ['d1'], ['d1', 'd2'], [], ['d1'], ['d1', 'd2']]);
  });

  it('answers the refusal of choose when no other proxy is left to retry on', async () => {
    const target = await startTarget();
    const dead = await deadUpstream('only-one');
    const { endpoint, chooseCalls } = await startGateway({ upstreams: [dead] });
    const plain = await proxyGet(endpoint, `http://${target.address}/`);
    expect(plain.status).toBe(503);
    expect(plain.headers['x-gateway-error']).toBe('no Ready proxy for this selector');
    expect(chooseCalls.map((call) => call.exclude)).toEqual([[], ['only-one']]);
    expect(target.seen).toEqual([]);
  });

  it("reports a tunnel's byte counts while it is open, and its exact totals when it closes", async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { endpoint, progress, finals, events, gateway } = await startGateway({ upstreams: [a], statsIntervalMs: 50 });
    const tunnel = await proxyConnect(endpoint, target.address);
    tunnel.socket.write(`GET /big?size=200000 HTTP/1.1\r\nHost: ${target.address}\r\n\r\n`);
    let received = 0;
    await new Promise<void>((resolve) =>
      tunnel.socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= 200_000) resolve();
      }),
    );
    // Still open: a report must come without the tunnel closing.
    await expect.poll(() => Math.max(0, ...progress.map((entry) => entry.bytesIn)), { timeout: 2_000 }).toBeGreaterThan(200_000);
    expect(events).toEqual(['opened 1 proxy-a tok-1']);
    expect(gateway.openTunnels('proxy-a')).toBe(1);
    tunnel.socket.destroy();
    await expect.poll(() => events).toEqual(['opened 1 proxy-a tok-1', 'closed 1 ok']);
    expect(gateway.openTunnels('proxy-a')).toBe(0);
    // What the gateway read from proxy-a: its answer to CONNECT, then everything the crawler got.
    const [final] = finals;
    expect(final!.bytesIn).toBe(received + 'HTTP/1.1 200 Connection Established\r\n\r\n'.length);
    expect(final!.bytesOut).toBeGreaterThan(`GET /big?size=200000 HTTP/1.1\r\n`.length);
    expect(progress.every((entry) => entry.connection === 1 && entry.bytesIn <= final!.bytesIn)).toBe(true);
  });

  it('closes the upstream socket of a client that left before its tunnel was set up', async () => {
    const silent = await silentUpstream('proxy-silent');
    let release = () => {};
    const authGate = new Promise<void>((resolve) => (release = resolve));
    const { endpoint, authCalls, gateway } = await startGateway({ upstreams: [silent], authGate });
    const client = net.connect({ host: endpoint.host, port: endpoint.port });
    await new Promise((resolve) => client.once('connect', resolve));
    const auth = Buffer.from(endpoint.credentials).toString('base64');
    client.write(`CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`);
    await expect.poll(() => authCalls.length).toBe(1);
    const left = once(client, 'close');
    client.destroy();
    await left; // the client has gone (its FIN is on the gateway's socket) before the token check answers
    release();
    await expect.poll(() => silent.accepted.length).toBe(1);
    await expect.poll(() => [silent.open.size, gateway.openTunnels('proxy-silent'), gateway.clientConnections()], { timeout: 2_000 }).toEqual([0, 0, 0]);
  });

  it('stop closes open tunnels and their upstream sockets', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { endpoint, gateway, finals } = await startGateway({ upstreams: [a] });
    const tunnel = await proxyConnect(endpoint, target.address);
    const closed = new Promise<void>((resolve) => tunnel.socket.on('close', () => resolve()));
    tunnel.socket.on('error', () => undefined);
    expect(a.server.getConnectionIds()).toHaveLength(1);
    await gateway.stop();
    await closed;
    await expect.poll(() => a.server.getConnectionIds().length).toBe(0);
    expect(finals.map((final) => final.result)).toEqual(['stopped']);
    await expect(proxyGet(endpoint, `http://${target.address}/`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('closes the open tunnels of one proxy on demand (drain over) and leaves the others', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const b = await startUpstream('proxy-b');
    const upstreams = [a, b];
    const { endpoint, gateway, finals } = await startGateway({ upstreams });
    const first = await proxyConnect(endpoint, target.address);
    upstreams.reverse();
    const second = await proxyConnect(endpoint, target.address);
    const firstClosed = new Promise<void>((resolve) => first.socket.on('close', () => resolve()));
    expect(gateway.closeTunnels('proxy-a')).toBe(1);
    await firstClosed;
    expect(finals.map((final) => final.result)).toEqual(['drained']);
    expect(second.socket.destroyed).toBe(false);
    expect(gateway.openTunnels('proxy-b')).toBe(1);
    second.socket.destroy();
  });
});
