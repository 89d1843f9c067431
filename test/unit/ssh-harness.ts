// Test doubles for the SSH transport: an in-process ssh2 server with public-key auth and
// streamlocal forwarding, a unix-socket echo server, a TCP relay that can freeze a link, keys and
// known_hosts lines. Everything listens on loopback or in a temp dir and is closed by cleanup().

import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2, { type Connection, type ParsedKey } from 'ssh2';

export interface TestKey {
  private: string;
  /** `type base64 comment`, as in a .pub file. */
  public: string;
  /** `type base64`, the part a known_hosts line carries. */
  publicFields: string;
}

export function generateKey(type: 'ed25519' | 'ecdsa' = 'ed25519'): TestKey {
  const pair = generateOpenSshKeyPair(type);
  const publicFields = pair.public.trim().split(/\s+/).slice(0, 2).join(' ');
  return { private: pair.private, public: pair.public, publicFields };
}

/**
 * ssh2's generateKeyPairSync writes a malformed ed25519 key about once in 250 (ssh-keygen -y
 * rejects those too), so keep only keys that parse back.
 */
export function generateOpenSshKeyPair(type: 'ed25519' | 'ecdsa' | 'rsa'): { private: string; public: string } {
  for (;;) {
    const pair =
      type === 'ecdsa'
        ? ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 })
        : type === 'rsa'
          ? ssh2.utils.generateKeyPairSync('rsa', { bits: 2048 })
          : ssh2.utils.generateKeyPairSync('ed25519');
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
}

export function hashedHostName(name: string): string {
  const salt = randomBytes(20);
  const digest = createHmac('sha1', salt).update(name).digest();
  return `|1|${salt.toString('base64')}|${digest.toString('base64')}`;
}

/** Collects closers so every test can release what it opened with one call. */
export class Resources {
  readonly #closers: Array<() => Promise<void> | void> = [];

  add(closer: () => Promise<void> | void): void {
    this.#closers.push(closer);
  }

  async cleanup(): Promise<void> {
    for (const closer of this.#closers.splice(0).reverse()) await closer();
  }

  async tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'kvm2-ssh-test-'));
    this.add(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content, { mode: 0o600 });
}

function listen(server: NetServer, resources: Resources, target: number | string = 0): Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  resources.add(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return new Promise((resolve) => {
    if (typeof target === 'string') server.listen(target, resolve);
    else server.listen(target, '127.0.0.1', resolve);
  });
}

function portOf(server: NetServer): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP port');
  return address.port;
}

export interface TestSshServer {
  port: number;
  address: string;
  /** Raw TCP sockets accepted so far, so tests can see the client went away. */
  sockets: Socket[];
  /** Socket paths clients asked to forward. */
  forwardRequests: string[];
}

export interface TestSshServerOptions {
  hostKey: TestKey;
  /** Read on every authentication attempt, so a test can rotate it. */
  authorizedKeys: () => TestKey[];
  /** Default: connect to the requested unix socket. 'ignore' never answers the channel open. */
  streamlocal?: 'connect' | 'ignore';
}

export async function startTestSshServer(resources: Resources, options: TestSshServerOptions): Promise<TestSshServer> {
  const state: TestSshServer = { port: 0, address: '', sockets: [], forwardRequests: [] };
  const ssh = new ssh2.Server({ hostKeys: [options.hostKey.private] }, (client) => serveClient(client, options, state));
  const tcp = createServer((socket) => {
    state.sockets.push(socket);
    ssh.injectSocket(socket);
  });
  await listen(tcp, resources);
  state.port = portOf(tcp);
  state.address = `127.0.0.1:${state.port}`;
  return state;
}

function serveClient(client: Connection, options: TestSshServerOptions, state: TestSshServer): void {
  client.on('error', () => {});
  client.on('authentication', (ctx) => {
    if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
    const allowed = options.authorizedKeys().map((key) => ssh2.utils.parseKey(key.public) as ParsedKey);
    const match = allowed.find((key) => ctx.key.data.equals(key.getPublicSSH()));
    if (!match) return ctx.reject(['publickey']);
    if (ctx.signature && ctx.blob && match.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) {
      return ctx.reject(['publickey']);
    }
    ctx.accept();
  });
  client.on('openssh.streamlocal', (accept, reject, info) => {
    state.forwardRequests.push(info.socketPath);
    if (options.streamlocal === 'ignore') return;
    const local = connect(info.socketPath);
    local.once('error', () => reject());
    local.once('connect', () => {
      const channel = accept();
      channel.on('error', () => {});
      local.removeAllListeners('error');
      local.on('error', () => channel.close());
      channel.pipe(local).pipe(channel);
    });
  });
}

export interface UnixEchoServer {
  path: string;
  /** Connections accepted so far. */
  connections: Socket[];
}

export async function startUnixEchoServer(resources: Resources, dir: string): Promise<UnixEchoServer> {
  const state: UnixEchoServer = { path: join(dir, 'echo.sock'), connections: [] };
  const server = createServer((socket) => {
    state.connections.push(socket);
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  await listen(server, resources, state.path);
  return state;
}

export interface StallableRelay {
  address: string;
  /** Stops moving bytes in both directions while keeping both TCP connections open. */
  stall(): void;
}

export async function startStallableRelay(resources: Resources, targetPort: number): Promise<StallableRelay> {
  const pairs: Array<[Socket, Socket]> = [];
  const server = createServer((inbound) => {
    const outbound = connect(targetPort, '127.0.0.1');
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
    inbound.pipe(outbound).pipe(inbound);
    pairs.push([inbound, outbound]);
  });
  resources.add(() => pairs.flat().forEach((socket) => socket.destroy()));
  await listen(server, resources);
  return {
    address: `127.0.0.1:${portOf(server)}`,
    stall() {
      for (const [inbound, outbound] of pairs) {
        inbound.unpipe(outbound);
        outbound.unpipe(inbound);
        inbound.pause();
        outbound.pause();
      }
    },
  };
}

/** A TCP server that accepts and never says a word: the SSH handshake never starts. */
export async function startSilentServer(resources: Resources, options: { banner?: string } = {}): Promise<{ address: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    if (options.banner) socket.write(options.banner); // says hello, then nothing more
    socket.resume(); // read (and drop) the client's banner, so its hang-up is seen
  });
  await listen(server, resources);
  return { address: `127.0.0.1:${portOf(server)}`, sockets };
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = portOf(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves when the socket has closed (at once if it already has). */
export function closed(socket: Socket): Promise<void> {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

export interface DialScenario {
  dir: string;
  clientKey: TestKey;
  hostKey: TestKey;
  server: TestSshServer;
  echo: UnixEchoServer;
  keyFile: string;
  knownHostsFile: string;
  /** Options for dialSsh/dialUnixSocket against this server, with small budgets. */
  dialOptions: { address: string; user: string; keyFile: string; knownHostsFile: string; timeoutMs: number };
}

/**
 * A client key authorised on an in-process server, its host key in a plain known_hosts line
 * under `[127.0.0.1]:port`, and a unix echo socket to forward.
 */
export async function startDialScenario(resources: Resources, options: Partial<Pick<TestSshServerOptions, 'streamlocal'>> = {}): Promise<DialScenario> {
  const dir = await resources.tempDir();
  const clientKey = generateKey();
  const hostKey = generateKey();
  const server = await startTestSshServer(resources, { hostKey, authorizedKeys: () => [clientKey], ...options });
  const echo = await startUnixEchoServer(resources, dir);
  const keyFile = join(dir, 'id_ed25519');
  const knownHostsFile = join(dir, 'known_hosts');
  await writeFiles(dir, { id_ed25519: clientKey.private, known_hosts: `[127.0.0.1]:${server.port} ${hostKey.publicFields}\n` });
  return {
    dir,
    clientKey,
    hostKey,
    server,
    echo,
    keyFile,
    knownHostsFile,
    dialOptions: { address: server.address, user: 'tester', keyFile, knownHostsFile, timeoutMs: 5_000 },
  };
}
