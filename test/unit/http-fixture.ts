// A throwaway HTTP server on loopback for one test file, and a body reader.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(handler: RequestListener): Promise<LoopbackServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Reads a body to its end; returns how many bytes came. */
export async function drain(body: AsyncIterable<Uint8Array>): Promise<number> {
  let total = 0;
  for await (const chunk of body) total += chunk.length;
  return total;
}
