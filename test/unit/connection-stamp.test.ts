// The connection facts the server stamps on every request (route handlers have no socket): the
// peer and local address come from the socket itself, a client's own header cannot pass for a stamp,
// and X-Forwarded-For counts only from a trusted proxy.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAddress, unidentifiedClient } from '@/server/http/client';
import { connectionHeader, connectionOf, connectionStamp, installConnectionStamp } from '@/server/http/connection';
import { AddressSet } from '@/server/http/exposure';

const seen: IncomingMessage['headers'][] = [];
const server = createServer((incoming, response) => {
  seen.push(incoming.headers);
  response.end('ok');
});
let port = 0;

beforeAll(async () => {
  installConnectionStamp();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const asRequest = (headers: IncomingMessage['headers']) =>
  new Request('http://127.0.0.1/', { headers: Object.entries(headers).map(([key, value]) => [key, String(value)] as [string, string]) });

describe('connection stamp', () => {
  it('records the socket’s peer and local address, replacing whatever the client sent in its place', async () => {
    const agent = new Agent({ localAddress: '127.0.0.2' });
    try {
      const forged = `forged-key 203.0.113.9 127.0.0.1 ${port}`;
      const answer = await request(`http://127.0.0.1:${port}/`, {
        dispatcher: agent,
        headers: { [connectionHeader]: forged, 'x-forwarded-for': '203.0.113.9' },
      });
      await answer.body.text();
    } finally {
      await agent.close();
    }
    const stamped = asRequest(seen.at(-1)!);
    expect(connectionOf(stamped)).toEqual({ peer: '127.0.0.2', localAddress: '127.0.0.1', localPort: port });
    expect(clientAddress(stamped, { trustedProxies: new AddressSet() })).toBe('127.0.0.2');
    expect(clientAddress(stamped, { trustedProxies: new AddressSet(['127.0.0.0/8']) })).toBe('203.0.113.9');
  });

  it('reads a request without a genuine stamp as unidentified', () => {
    for (const value of [
      undefined,
      'x 192.0.2.1 127.0.0.1 3000',
      `${connectionStamp({ peer: '192.0.2.1', localAddress: '127.0.0.1', localPort: 3000 })} extra`,
    ]) {
      const request = new Request('http://127.0.0.1/', { headers: value === undefined ? {} : { [connectionHeader]: value } });
      expect(connectionOf(request)).toBeUndefined();
      expect(clientAddress(request, { trustedProxies: new AddressSet() })).toBe(unidentifiedClient);
    }
  });
});
