// Plain HTTP requests through the gateway reuse their connection to a fleet proxy (keep-alive, one
// pool per proxy), as proxy-chain alone does, while every request is still counted exactly for its
// own token and proxy; CONNECT tunnels still get a connection each. A proxy-chain server in direct
// mode stands in for a Squid and tells which connections it accepted and what each answer cost.
import http from 'node:http';
import net from 'node:net';
import { Server as ProxyChainServer } from 'proxy-chain';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayServer } from '@/server/gateway/server';
import { createLogger } from '@/server/telemetry/logger';
import { getOverTunnel, proxyConnect, proxyGet } from '@/test/fakes/gateway-client';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function startTarget(): Promise<string> {
  const server = http.createServer((request, response) => {
    const size = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('size') ?? 0);
    // Answers once the whole request arrived (a POST's body too).
    request.resume();
    request.once('end', () => response.end(size > 0 ? Buffer.alloc(size, 'x') : 'hello from the target'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** A Squid stand-in: the connections it accepted, and after each answer its socket's counts. */
async function startUpstream(name: string) {
  const connections: net.Socket[] = [];
  const answered: Array<{ written: number; read: number }> = [];
  const server = new ProxyChainServer({ port: 0, host: '127.0.0.1' });
  server.server.on('connection', (socket: net.Socket) => connections.push(socket));
  server.server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    response.once('finish', () => answered.push({ written: request.socket.bytesWritten, read: request.socket.bytesRead }));
  });
  await server.listen();
  cleanups.push(() => server.close(true));
  const open = () => connections.filter((socket) => !socket.destroyed).length;
  return { name, url: `http://127.0.0.1:${server.port}`, server, connections, answered, open };
}

type Upstream = Awaited<ReturnType<typeof startUpstream>>;

/** A POST through the proxy, its body written in two pieces (or, as the reference, one); its answer's time. */
function timedPost(proxy: { host: string; port: number; credentials: string }, url: string, body: 'in pieces' | 'at once' = 'in pieces'): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request({
      method: 'POST',
      host: proxy.host,
      port: proxy.port,
      path: url,
      agent: false,
      headers: { host: new URL(url).host, 'proxy-authorization': `Basic ${Buffer.from(proxy.credentials).toString('base64')}` },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(performance.now() - started));
    });
    request.on('error', reject);
    if (body === 'at once') return void request.end('first part of the body' + 'second part');
    request.write('first part of the body');
    setImmediate(() => request.end('second part'));
  });
}

function median(values: number[]): number {
  return [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
}

async function startGateway(upstreams: Upstream[]) {
  const opened: Array<{ connection: number; proxy: string; token: string }> = [];
  const finals = new Map<number, { bytesIn: number; bytesOut: number; result: string }>();
  const gateway = new GatewayServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    authenticate: async (_username, password) => ({ 'token-one': { tokenId: 'tok-1' }, 'token-two': { tokenId: 'tok-2' } })[password],
    choose: ({ exclude }) => {
      const next = upstreams.find((upstream) => !exclude.has(upstream.name));
      return next ? { proxy: next.name, upstreamUrl: next.url } : { refusal: 'no Ready proxy', status: 503 };
    },
    observer: {
      opened: (tunnel) => opened.push(tunnel),
      progress: () => undefined,
      closed: (connection, final) => finals.set(connection, final),
    },
  });
  await gateway.start();
  cleanups.push(() => gateway.stop());
  const as = (token: string) => ({ host: '127.0.0.1', port: gateway.port, credentials: `crawler:${token}` });
  return { gateway, as, opened, finals };
}

describe('gateway reuses connections to a proxy for plain HTTP', () => {
  it('carries two requests one after another on one upstream connection', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { as } = await startGateway([a]);
    expect(await proxyGet(as('token-one'), `http://${target}/one`)).toMatchObject({ status: 200, body: 'hello from the target' });
    expect(await proxyGet(as('token-one'), `http://${target}/two`)).toMatchObject({ status: 200, body: 'hello from the target' });
    expect(a.answered).toHaveLength(2);
    expect(a.connections).toHaveLength(1);
  });

  it('counts each request exactly for its own token, though they share the connection', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { as, opened, finals, gateway } = await startGateway([a]);
    expect((await proxyGet(as('token-one'), `http://${target}/big?size=1000`)).body).toHaveLength(1000);
    expect((await proxyGet(as('token-two'), `http://${target}/big?size=50000`)).body).toHaveLength(50_000);
    expect(a.connections).toHaveLength(1);
    await expect.poll(() => finals.size).toBe(2);
    expect(opened.map(({ proxy, token }) => `${proxy} ${token}`)).toEqual(['proxy-a tok-1', 'proxy-a tok-2']);
    const [first, second] = a.answered;
    expect(finals.get(opened[0]!.connection)).toEqual({ bytesIn: first!.written, bytesOut: first!.read, result: 'ok' });
    expect(finals.get(opened[1]!.connection)).toEqual({ bytesIn: second!.written - first!.written, bytesOut: second!.read - first!.read, result: 'ok' });
    // An idle pooled connection is no open tunnel (rotation and drain count requests in flight).
    expect(gateway.openTunnels('proxy-a')).toBe(0);
  });

  it('sends a body written in pieces on at once, not after the proxy acknowledges each (no Nagle stall)', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { as } = await startGateway([a]);
    await timedPost(as('token-one'), `http://${target}/warm-up`);
    const pieces: number[] = [];
    const atOnce: number[] = [];
    for (let request = 0; request < 5; request += 1) {
      pieces.push(await timedPost(as('token-one'), `http://${target}/upload`));
      atOnce.push(await timedPost(as('token-one'), `http://${target}/upload`, 'at once'));
    }
    expect(a.connections).toHaveLength(1);
    // With Nagle on, each piece after the first waits for the proxy's delayed ACK: ~40 ms more than
    // the same body in one write, whatever this machine's round trip.
    expect(median(pieces) - median(atOnce)).toBeLessThan(20);
  });

  it('closes the upstream connection of a client that leaves before the answer, not counting it a proxy failure', async () => {
    const accepted: net.Socket[] = [];
    let closed = 0;
    const silent = net.createServer((socket) => {
      accepted.push(socket);
      socket.on('error', () => undefined).on('close', () => (closed += 1));
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => silent.close(resolve)));
    const upstream = { name: 'proxy-silent', url: `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}` } as Upstream;
    const { as, opened, finals, gateway } = await startGateway([upstream]);
    const request = http.request({ ...as('token-one'), path: 'http://127.0.0.1:9/', agent: false });
    request.setHeader('proxy-authorization', `Basic ${Buffer.from('crawler:token-one').toString('base64')}`);
    request.on('error', () => undefined);
    request.end();
    await expect.poll(() => accepted.length).toBe(1);
    await expect.poll(() => opened.length).toBe(1);
    request.destroy();
    await expect.poll(() => closed).toBe(1);
    await expect.poll(() => finals.get(opened[0]!.connection)?.result).toBe('ok');
    expect(gateway.openTunnels('proxy-silent')).toBe(0);
  });

  it('closes idle pooled connections when the drain of their proxy is over, and leaves the others', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const b = await startUpstream('proxy-b');
    const upstreams = [a, b];
    const { as, gateway } = await startGateway(upstreams);
    await proxyGet(as('token-one'), `http://${target}/`);
    upstreams.reverse();
    await proxyGet(as('token-one'), `http://${target}/`);
    expect([a.open(), b.open()]).toEqual([1, 1]);
    expect(gateway.closeTunnels('proxy-a')).toBe(0);
    await expect.poll(() => a.open()).toBe(0);
    expect(b.open()).toBe(1);
  });

  it('closes the idle pooled connections of proxies that left the fleet', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { as, gateway } = await startGateway([a]);
    await proxyGet(as('token-one'), `http://${target}/`);
    expect(a.open()).toBe(1);
    gateway.retainProxies(new Set(['proxy-b']));
    await expect.poll(() => a.open()).toBe(0);
  });

  it('does not send a request on a pooled connection the proxy closed', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { as } = await startGateway([a]);
    await proxyGet(as('token-one'), `http://${target}/`);
    a.server.closeConnections();
    await expect.poll(() => a.open()).toBe(0);
    expect(await proxyGet(as('token-one'), `http://${target}/`)).toMatchObject({ status: 200, body: 'hello from the target' });
    expect(a.connections).toHaveLength(2);
  });

  it('gives a CONNECT tunnel a connection of its own, never a pooled one', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { as, gateway } = await startGateway([a]);
    await proxyGet(as('token-one'), `http://${target}/`);
    const tunnel = await proxyConnect(as('token-one'), target);
    expect(tunnel.status).toBe(200);
    expect(await getOverTunnel(tunnel.socket, target, '/over-tunnel')).toContain('hello from the target');
    expect(a.connections).toHaveLength(2);
    await expect.poll(() => gateway.openTunnels('proxy-a')).toBe(0);
    expect(await proxyGet(as('token-one'), `http://${target}/`)).toMatchObject({ status: 200 });
    expect(a.connections).toHaveLength(2);
  });

  it('stop closes idle pooled connections', async () => {
    const target = await startTarget();
    const a = await startUpstream('proxy-a');
    const { as, gateway } = await startGateway([a]);
    await proxyGet(as('token-one'), `http://${target}/`);
    expect(a.open()).toBe(1);
    await gateway.stop();
    await expect.poll(() => a.open()).toBe(0);
  });
});

describe('gateway CONNECT tunnels', () => {
  it('pass small writes on at once, not after the proxy acknowledges each (no Nagle stall)', async () => {
    // The target answers once it has both pieces of a message sent in two writes (as a TLS
    // handshake or an HTTP/2 preface sends them).
    const target = net.createServer((socket) => {
      socket.setNoDelay(true);
      let received = 0;
      socket.on('data', (piece: Buffer) => {
        received += piece.length;
        if (received % 4 === 0) socket.write('ok');
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => target.close(resolve)));
    // A bare CONNECT proxy without Nagle on either side, so any stall is the gateway's.
    const proxy = net.createServer((client) => {
      client.setNoDelay(true);
      client.once('data', (head: Buffer) => {
        const [host, port] = /^CONNECT (\S+) /.exec(head.toString())![1]!.split(':');
        const upstream = net.connect({ host, port: Number(port), noDelay: true }, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          client.pipe(upstream).pipe(client);
        });
        upstream.on('error', () => client.destroy());
      });
      client.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => proxy.close(resolve)));
    const a = { name: 'proxy-a', url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}` } as Upstream;
    const { as } = await startGateway([a]);
    const tunnel = await proxyConnect(as('token-one'), `127.0.0.1:${(target.address() as net.AddressInfo).port}`);
    expect(tunnel.status).toBe(200);
    tunnel.socket.setNoDelay(true);
    // Each message is 4 bytes: two pieces 2 ms apart, or (the reference) one write after the same pause.
    const roundTrip = async (inPieces: boolean) => {
      const started = performance.now();
      const answered = new Promise((resolve) => tunnel.socket.once('data', resolve));
      if (inPieces) tunnel.socket.write('ab');
      await new Promise((resolve) => setTimeout(resolve, 2));
      tunnel.socket.write(inPieces ? 'cd' : 'abcd');
      await answered;
      return performance.now() - started;
    };
    const pieces: number[] = [];
    const atOnce: number[] = [];
    for (let message = 0; message < 7; message += 1) {
      pieces.push(await roundTrip(true));
      atOnce.push(await roundTrip(false));
    }
    tunnel.socket.destroy();
    // With Nagle on between the gateway and the proxy, the second piece waits for the proxy's delayed ACK: ~40 ms.
    expect(median(pieces) - median(atOnce)).toBeLessThan(20);
  });
});
