// A crawler's side of the gateway, for tests: a plain request through a forward proxy and a
// CONNECT tunnel, with Proxy-Authorization Basic built from a username and a token. Node's own
// http client, so what it sees is what any crawler's HTTP stack would see.
import http from 'node:http';
import type { Socket } from 'node:net';

export interface ProxyEndpoint {
  host: string;
  port: number;
  /** `user:token`, sent as Proxy-Authorization Basic; none sends no header */
  credentials?: string;
  /** the client's own source address (e.g. 127.0.0.2), to tell clients apart on loopback */
  localAddress?: string;
}

export interface ProxyAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The Proxy-Authorization header for `credentials`; none without them. */
export function proxyAuthorization(credentials: string | undefined): Record<string, string> {
  return credentials === undefined ? {} : { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** GET `url` (absolute, http:) through the proxy; the whole body as text. */
export function proxyGet(proxy: ProxyEndpoint, url: string): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: proxy.host,
      port: proxy.port,
      path: url,
      agent: false,
      localAddress: proxy.localAddress,
      headers: { host: new URL(url).host, ...proxyAuthorization(proxy.credentials) },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

export interface Tunnel {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** the tunnel's socket when the proxy answered 200; the error body otherwise */
  socket: Socket;
  body: string;
}

/** The CONNECT request for `target` (host:port) through the proxy, still to be ended. */
export function connectRequest(proxy: ProxyEndpoint, target: string): http.ClientRequest {
  return http.request({
    host: proxy.host,
    port: proxy.port,
    method: 'CONNECT',
    path: target,
    agent: false,
    localAddress: proxy.localAddress,
    headers: { host: target, ...proxyAuthorization(proxy.credentials) },
  });
}

/** CONNECT `target` (host:port) through the proxy; resolves once the proxy answered. */
export function proxyConnect(proxy: ProxyEndpoint, target: string): Promise<Tunnel> {
  return new Promise((resolve, reject) => {
    const request = connectRequest(proxy, target);
    request.on('connect', (response: http.IncomingMessage, socket: Socket, head: Buffer) => {
      const status = response.statusCode ?? 0;
      if (status === 200) {
        if (head.length > 0) socket.unshift(head);
        resolve({ status, headers: response.headers, socket, body: '' });
        return;
      }
      const chunks: Buffer[] = [head];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve({ status, headers: response.headers, socket, body: Buffer.concat(chunks).toString('utf8') }));
      socket.on('error', () => undefined);
    });
    request.on('error', reject);
    request.end();
  });
}

/** One HTTP/1.1 GET over an open tunnel (`Connection: close`); the raw answer as text. */
export function getOverTunnel(socket: Socket, hostHeader: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`);
  });
}
