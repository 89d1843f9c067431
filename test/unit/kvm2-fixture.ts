// Shared by the kvm2-*.test.ts unit tests: a kvm2 provider over FakeHypervisors, a local HTTP
// mirror serving a test image (with the awkward variants), captured log lines, and helpers to
// pre-seed the image cache.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kvm2Entry } from '@/server/providers/config';
import type { CreateRequest } from '@/server/providers/contract';
import { defaultBudgets, type Budgets } from '@/server/providers/kvm2/backend';
import { resolveImage } from '@/server/providers/kvm2/image-resolve';
import { withDefaults, type Kvm2Settings } from '@/server/providers/kvm2/kvm2';
import { createKvm2Provider, type Kvm2Provider } from '@/server/providers/kvm2/provider';
import { createLogger } from '@/server/telemetry/logger';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';

export const testImage = randomBytes(300 * 1024);
export const testImageDigest = createHash('sha256').update(testImage).digest('hex');
export const fixedNow = new Date('2026-09-16T17:42:11Z');

type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A mirror on loopback with the lab image server's variants, counting hits per `METHOD path`. */
export class TestMirror {
  readonly hits = new Map<string, number>();
  /** Extra or replaced routes for one test. */
  readonly routes = new Map<string, Route>();
  private server!: Server;
  url = '';

  private readonly builtIn: Record<string, Route> = {
    '/image.qcow2': (_req, res) => res.writeHead(200, { 'content-length': testImage.length }).end(_req.method === 'HEAD' ? undefined : testImage),
    '/other.qcow2': (req, res) => {
      const other = Buffer.alloc(1024, 7);
      res.writeHead(200, { 'content-length': other.length }).end(req.method === 'HEAD' ? undefined : other);
    },
    '/chunked.qcow2': (_req, res) => {
      res.writeHead(200);
      res.end(testImage.subarray(0, 10));
    },
    '/empty.qcow2': (_req, res) => res.writeHead(200, { 'content-length': 0 }).end(),
    '/404': (_req, res) => res.writeHead(404).end('no'),
    '/429': (_req, res) => res.writeHead(429).end('slow down'),
    '/503': (_req, res) => res.writeHead(503).end('busy'),
    '/head-405.qcow2': (req, res) =>
      req.method === 'HEAD' ? res.writeHead(405).end() : res.writeHead(200, { 'content-length': testImage.length }).end(testImage),
    '/truncated.qcow2': (req, res) => {
      res.writeHead(200, { 'content-length': testImage.length });
      if (req.method === 'HEAD') return void res.end();
      res.write(testImage.subarray(0, testImage.length / 2), () => res.destroy());
    },
    '/stall.qcow2': (req, res) => {
      res.writeHead(200, { 'content-length': testImage.length });
      if (req.method === 'HEAD') return void res.end();
      res.write(testImage.subarray(0, 1024));
    },
  };

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '';
      const key = `${req.method} ${path}`;
      this.hits.set(key, (this.hits.get(key) ?? 0) + 1);
      const route = this.routes.get(path) ?? this.builtIn[path] ?? ((_q: IncomingMessage, r: ServerResponse) => r.writeHead(404).end());
      route(req, res);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  gets(path: string): number {
    return this.hits.get(`GET ${path}`) ?? 0;
  }
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface HarnessOptions {
  mirror: TestMirror;
  /** image path on the mirror for the `img` key (default /image.qcow2) */
  imagePath?: string;
  sha256?: string;
  diskSizeGb?: number;
  hosts?: string[];
  budgets?: Partial<Budgets>;
  /** the hosts' virtType; null leaves it unset (detect). Default qemu. */
  virtType?: 'kvm' | 'qemu' | null;
  /** host name -> hypervisor; default one hypervisor per host */
  hypervisors?: Record<string, FakeHypervisor>;
  /** default trace: every line */
  logLevel?: string;
  placementPolicy?: 'spread' | 'pack';
}

export interface Harness {
  provider: Kvm2Provider;
  backend: FakeHostBackend;
  hypervisor: FakeHypervisor;
  settings: Kvm2Settings;
  logs: LogLine[];
  /** the same lines as written, before JSON.parse could hide a key written twice */
  rawLogs: string[];
  request(name: string, overrides?: Partial<CreateRequest>): CreateRequest;
  /** The base and marker volume names of the `img` image. */
  imageVolumes: { base: string; marker: string };
  /** Puts a complete cached copy of the test image in the pool. */
  seedCache(hypervisor?: FakeHypervisor): void;
}

export const testBudgets: Budgets = { ...defaultBudgets, runningWaitMs: 300, runningPollMs: 10 };

export function makeEntry(options: HarnessOptions): Kvm2Entry {
  return {
    name: 't',
    type: 'kvm2',
    kvm2: {
      sshKeyFile: '/dev/null',
      insecureIgnoreHostKey: true,
      diskSizeGb: options.diskSizeGb ?? 10,
      ...(options.placementPolicy ? { placementPolicy: options.placementPolicy } : {}),
      images: { img: { url: `${options.mirror.url}${options.imagePath ?? '/image.qcow2'}`, sha256: options.sha256 } },
      machineTypes: { small: { vcpus: 1, memoryMiB: 256 } },
      hosts: (options.hosts ?? ['h1']).map((name, index) => ({
        name,
        address: `10.0.0.${index + 1}:22`,
        user: 'u',
        bridge: 'br0',
        ...(options.virtType === null ? {} : { virtType: options.virtType ?? 'qemu' }),
      })),
    },
  };
}

export function makeHarness(options: HarnessOptions): Harness {
  const settings = withDefaults(makeEntry(options));
  const hosts = settings.hosts.map((host) => host.name);
  const hypervisors = options.hypervisors ?? Object.fromEntries(hosts.map((name) => [name, new FakeHypervisor()]));
  const backend = new FakeHostBackend(hypervisors);
  const logs: LogLine[] = [];
  const rawLogs: string[] = [];
  const logger = createLogger({
    level: options.logLevel ?? 'trace',
    destination: {
      write: (line: string) => {
        rawLogs.push(line);
        logs.push(JSON.parse(line) as LogLine);
      },
    },
  });
  const provider = createKvm2Provider({
    settings,
    logger,
    backend,
    budgets: { ...testBudgets, ...options.budgets },
    now: () => fixedNow,
  });
  const image = resolveImage(settings, 'img');
  const hypervisor = hypervisors[hosts[0] as string] as FakeHypervisor;
  return {
    provider,
    backend,
    hypervisor,
    settings,
    logs,
    rawLogs,
    imageVolumes: { base: image.baseVolume, marker: image.markerVolume },
    request: (name, overrides = {}) => ({
      name,
      uid: `uid-${name}`,
      placement: { zone: hosts.length > 1 ? hosts[0] : undefined, machineType: 'small', image: 'img' },
      cloudInit: '#cloud-config\nsecret: do-not-log-me\n',
      port: 3128,
      ...overrides,
    }),
    seedCache: (target = hypervisor) => {
      target.addVolume({ name: image.baseVolume, format: 'qcow2', content: testImage });
      target.addVolume({ name: image.markerVolume, content: testImageDigest });
    },
  };
}

export const providerIdOf = (host: string, domain: string) => `hosts/${host}/domains/${domain}`;

/** The error `promise` rejects with, or undefined when it resolves. */
export function failureOf(promise: Promise<unknown>): Promise<Error | undefined> {
  return promise.then(
    () => undefined,
    (err: unknown) => err as Error,
  );
}
