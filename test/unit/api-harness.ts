// Shared by the api-*.test.ts files: the process runtime started over a fake provider (`fake-1`)
// and a kvm2 provider (`kvm2-home`) on an in-memory libvirt, the auth service with a cheap scrypt
// cost, every route handler in a table, a `call` that builds a Request the way a browser would
// send it, every response body and log line captured, and a snapshot of everything stored.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import * as login from '@/app/api/auth/login/route';
import * as logout from '@/app/api/auth/logout/route';
import * as password from '@/app/api/auth/password/route';
import * as setup from '@/app/api/auth/setup/route';
import * as status from '@/app/api/auth/status/route';
import * as cluster from '@/app/api/cluster/route';
import * as config from '@/app/api/config/route';
import * as discovery from '@/app/api/discovery/proxies/route';
import * as gateway from '@/app/api/gateway/route';
import * as gatewayToken from '@/app/api/gateway/tokens/[id]/route';
import * as gatewayTokens from '@/app/api/gateway/tokens/route';
import * as liveEvents from '@/app/api/events/route';
import * as setupAuthenticate from '@/app/api/host-setup/authenticate/route';
import * as setupCapabilities from '@/app/api/host-setup/capabilities/route';
import * as setupCheck from '@/app/api/host-setup/check/route';
import * as setupHostKey from '@/app/api/host-setup/host-key/route';
import * as setupTrust from '@/app/api/host-setup/host-key/trust/route';
import * as setupLibvirt from '@/app/api/host-setup/libvirt/route';
import * as setupResources from '@/app/api/host-setup/resources/route';
import * as healthz from '@/app/api/healthz/route';
import * as metrics from '@/app/api/metrics/route';
import * as providerHealth from '@/app/api/providers/[provider]/health/route';
import * as hostImage from '@/app/api/providers/[provider]/hosts/[host]/images/[volume]/route';
import * as host from '@/app/api/providers/[provider]/hosts/[host]/route';
import * as hosts from '@/app/api/providers/[provider]/hosts/route';
import * as hostStats from '@/app/api/providers/[provider]/hosts/[host]/stats/route';
import * as placement from '@/app/api/providers/[provider]/placement/route';
import * as providers from '@/app/api/providers/route';
import * as proxyConsoleInput from '@/app/api/proxies/[name]/console/input/route';
import * as proxyConsole from '@/app/api/proxies/[name]/console/route';
import * as proxyConsoleTakeover from '@/app/api/proxies/[name]/console/takeover/route';
import * as proxyDiagnosis from '@/app/api/proxies/[name]/diagnosis/route';
import * as traffic from '@/app/api/stats/traffic/route';
import * as proxyDownload from '@/app/api/proxies/[name]/download/route';
import * as proxyEvents from '@/app/api/proxies/[name]/events/route';
import * as proxyProbes from '@/app/api/proxies/[name]/probes/route';
import * as proxyStats from '@/app/api/proxies/[name]/stats/route';
import * as proxy from '@/app/api/proxies/[name]/route';
import * as proxies from '@/app/api/proxies/route';
import * as proxySetEvents from '@/app/api/proxysets/[name]/events/route';
import * as proxySetPause from '@/app/api/proxysets/[name]/pause/route';
import * as proxySetPlan from '@/app/api/proxysets/[name]/plan/route';
import * as proxySetReplace from '@/app/api/proxysets/[name]/replace/route';
import * as proxySetResume from '@/app/api/proxysets/[name]/resume/route';
import * as proxySet from '@/app/api/proxysets/[name]/route';
import * as proxySetScale from '@/app/api/proxysets/[name]/scale/route';
import * as proxySetPreview from '@/app/api/proxysets/preview/route';
import * as proxySets from '@/app/api/proxysets/route';
import * as sshIdentity from '@/app/api/ssh-identity/route';
import * as token from '@/app/api/tokens/[id]/route';
import * as tokens from '@/app/api/tokens/route';
import { apiErrorBodySchema } from '@/lib/api/errors';
import { StoragePoolState } from '@/server/libvirt';
import type { AuthService } from '@/server/auth/service';
import { settingsFromEnv } from '@/server/control/settings';
import { connectionHeader, connectionStamp } from '@/server/http/connection';
import type { RouteHandler } from '@/server/http/route';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import { createKvm2Provider, type Kvm2Provider } from '@/server/providers/kvm2/provider';
import { kvm2Capabilities } from '@/server/providers/provider-types';
import { ProviderRegistry } from '@/server/providers/registry';
import { type Runtime, startRuntimeOnce, stopRuntimeForTests } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { tempDir } from '@/test/fakes/control-plane';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { FakeProvider } from '@/test/fakes/fake-provider';

export const origin = 'http://127.0.0.1:3000';
/** the address requests come from unless a call names another (`peer`) */
export const defaultPeer = '192.0.2.50';
export const adminPassword = 'correct horse battery';
export const cheapCost = { N: 1024, r: 8, p: 1 };

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteRow {
  method: Method;
  /** the path with sample values in the dynamic segments */
  path: string;
  handler: RouteHandler;
  params?: Record<string, string>;
  /** the query string a route needs to answer 200 (without the `?`) */
  query?: string;
  /** who may call it without a session */
  access: 'public' | 'admin' | 'reader';
}

/** Routes that share an access level and path parameters, as `[method, path, handler]`. */
const routes = (shared: Pick<RouteRow, 'access' | 'params'>, rows: Array<[Method, string, RouteHandler]>): RouteRow[] =>
  rows.map(([method, path, handler]) => ({ method, path, handler, ...shared }));

const hv1 = { provider: 'kvm2-home', host: 'hv-1' };
const tokenId = { id: '0123456789abcdef' };

/** Every route of the API (healthz aside, which touches nothing), grouped by access level and path parameters. */
export const routeTable: RouteRow[] = [
  ...routes({ access: 'public' }, [
    ['POST', '/api/auth/login', login.POST],
    ['POST', '/api/auth/setup', setup.POST],
    ['GET', '/api/auth/status', status.GET],
  ]),
  ...routes({ access: 'admin' }, [
    ['POST', '/api/auth/logout', logout.POST],
    ['POST', '/api/auth/password', password.POST],
    ['GET', '/api/cluster', cluster.GET],
    ['GET', '/api/config', config.GET],
    ['GET', '/api/providers', providers.GET],
    ['GET', '/api/ssh-identity', sshIdentity.GET],
    ['POST', '/api/ssh-identity', sshIdentity.POST],
    ['POST', '/api/host-setup/host-key', setupHostKey.POST],
    ['POST', '/api/host-setup/host-key/trust', setupTrust.POST],
    ['POST', '/api/host-setup/authenticate', setupAuthenticate.POST],
    ['POST', '/api/host-setup/libvirt', setupLibvirt.POST],
    ['POST', '/api/host-setup/resources', setupResources.POST],
    ['POST', '/api/host-setup/capabilities', setupCapabilities.POST],
    ['POST', '/api/host-setup/check', setupCheck.POST],
    ['GET', '/api/proxies', proxies.GET],
    ['POST', '/api/proxies', proxies.POST],
    ['GET', '/api/proxysets', proxySets.GET],
    ['POST', '/api/proxysets', proxySets.POST],
    ['POST', '/api/proxysets/preview', proxySetPreview.POST],
    ['GET', '/api/stats/traffic', traffic.GET],
    ['GET', '/api/tokens', tokens.GET],
    ['POST', '/api/tokens', tokens.POST],
    ['GET', '/api/gateway', gateway.GET],
    ['GET', '/api/gateway/tokens', gatewayTokens.GET],
    ['POST', '/api/gateway/tokens', gatewayTokens.POST],
  ]),
  ...routes({ access: 'reader' }, [
    ['GET', '/api/discovery/proxies', discovery.GET],
    ['GET', '/api/metrics', metrics.GET],
    ['GET', '/api/events', liveEvents.GET],
  ]),
  ...routes({ access: 'admin', params: { provider: 'fake-1' } }, [['GET', '/api/providers/fake-1/health', providerHealth.GET]]),
  ...routes({ access: 'admin', params: { provider: 'kvm2-home' } }, [['POST', '/api/providers/kvm2-home/hosts', hosts.POST]]),
  {
    method: 'GET',
    path: '/api/providers/kvm2-home/placement',
    query: 'machineType=small',
    handler: placement.GET,
    params: { provider: 'kvm2-home' },
    access: 'admin',
  },
  ...routes({ access: 'admin', params: hv1 }, [
    ['GET', '/api/providers/kvm2-home/hosts/hv-1', host.GET],
    ['PUT', '/api/providers/kvm2-home/hosts/hv-1', host.PUT],
    ['DELETE', '/api/providers/kvm2-home/hosts/hv-1', host.DELETE],
    ['GET', '/api/providers/kvm2-home/hosts/hv-1/stats', hostStats.GET],
  ]),
  ...routes({ access: 'admin', params: { ...hv1, volume: 'base-kvm2-home-debian.qcow2' } }, [
    ['DELETE', '/api/providers/kvm2-home/hosts/hv-1/images/base-kvm2-home-debian.qcow2', hostImage.DELETE],
  ]),
  ...routes({ access: 'admin', params: { name: 'alpha' } }, [
    ['GET', '/api/proxies/alpha', proxy.GET],
    ['PUT', '/api/proxies/alpha', proxy.PUT],
    ['DELETE', '/api/proxies/alpha', proxy.DELETE],
    ['GET', '/api/proxies/alpha/events', proxyEvents.GET],
    ['GET', '/api/proxies/alpha/probes', proxyProbes.GET],
    ['GET', '/api/proxies/alpha/download', proxyDownload.GET],
    ['GET', '/api/proxies/alpha/console', proxyConsole.GET],
    ['POST', '/api/proxies/alpha/console/input', proxyConsoleInput.POST],
    ['POST', '/api/proxies/alpha/console/takeover', proxyConsoleTakeover.POST],
    ['GET', '/api/proxies/alpha/diagnosis', proxyDiagnosis.GET],
    ['GET', '/api/proxies/alpha/stats', proxyStats.GET],
  ]),
  ...routes({ access: 'admin', params: { name: 'crawl' } }, [
    ['GET', '/api/proxysets/crawl', proxySet.GET],
    ['PUT', '/api/proxysets/crawl', proxySet.PUT],
    ['DELETE', '/api/proxysets/crawl', proxySet.DELETE],
    ['POST', '/api/proxysets/crawl/plan', proxySetPlan.POST],
    ['POST', '/api/proxysets/crawl/scale', proxySetScale.POST],
    ['POST', '/api/proxysets/crawl/pause', proxySetPause.POST],
    ['POST', '/api/proxysets/crawl/resume', proxySetResume.POST],
    ['POST', '/api/proxysets/crawl/replace', proxySetReplace.POST],
    ['GET', '/api/proxysets/crawl/events', proxySetEvents.GET],
  ]),
  ...routes({ access: 'admin', params: tokenId }, [
    ['DELETE', '/api/tokens/0123456789abcdef', token.DELETE],
    ['DELETE', '/api/gateway/tokens/0123456789abcdef', gatewayToken.DELETE],
  ]),
];

export const handlers = {
  login,
  logout,
  password,
  setup,
  status,
  cluster,
  config,
  discovery,
  liveEvents,
  healthz,
  metrics,
  providerHealth,
  hostImage,
  host,
  hosts,
  hostStats,
  placement,
  providers,
  proxyConsole,
  proxyConsoleInput,
  proxyConsoleTakeover,
  proxyDiagnosis,
  proxyDownload,
  proxyEvents,
  proxyProbes,
  proxyStats,
  proxy,
  proxies,
  proxySet,
  proxySets,
  proxySetScale,
  proxySetPause,
  proxySetResume,
  proxySetReplace,
  proxySetEvents,
  proxySetPreview,
  proxySetPlan,
  token,
  tokens,
  gateway,
  gatewayToken,
  gatewayTokens,
  sshIdentity,
  setupHostKey,
  setupTrust,
  setupAuthenticate,
  setupLibvirt,
  setupResources,
  setupCapabilities,
  setupCheck,
  traffic,
};

export interface CallOptions {
  body?: unknown;
  /** sent as is, instead of JSON.stringify(body) */
  rawBody?: string;
  params?: Record<string, string>;
  /** the session cookie value to send; true: the harness's own session */
  session?: string | boolean;
  bearer?: string;
  /** null sends no Origin */
  origin?: string | null;
  /** the connection's peer address (default defaultPeer); null: a request without connection facts */
  peer?: string | null;
  headers?: Record<string, string>;
  /** aborts the request (the client disconnects) */
  signal?: AbortSignal;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** an event stream's: the `data` of each event up to its `ready`, parsed */
  json: any;
}

/** Where an event stream's start ends: the live feed's `ready` event, or a console's first `status`. */
const streamStarted = (text: string): boolean => text.includes('"kind":"ready"') || /(^|\n)event: status\ndata: [^\n]*\n\n/.test(text);

/** An event stream's text up to and including its start; the stream is then cancelled (the client leaves). */
async function readUntilReady(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!streamStarted(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

/** The parsed `data` of each event in an event stream's text. */
export function eventData(text: string): unknown[] {
  return text
    .split('\n\n')
    .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
}

/** An error answer's message and fields, read in one place so a change of the error body's shape is one change here. */
export function errorOf(answer: Answer): { message: string; fields?: Array<{ path: string; message: string }> } {
  const error = answer.json?.error;
  if (typeof error === 'string') return { message: error, fields: answer.json.fields };
  return { message: String(error?.message ?? ''), fields: error?.fields };
}

export interface Client {
  call(handler: RouteHandler, path: string, method: Method, options?: CallOptions): Promise<Answer>;
  /** a GET whose response is left unread (event streams) */
  open(handler: RouteHandler, path: string, options?: CallOptions): Promise<Response>;
  logIn(passwordText?: string): Promise<string>;
}

/** Calls route handlers the way the dashboard's browser would: same Origin, JSON, the session cookie. */
export function createClient(options: { responses: string[]; session: () => string | undefined; defaultPassword: string }): Client {
  const { responses } = options;
  const request = (path: string, method: Method, callOptions: CallOptions): Request => {
    const headers: Record<string, string> = { accept: 'application/json', host: new URL(origin).host, ...callOptions.headers };
    // What the server's connection hook stamps on every request: this server at 127.0.0.1:3000.
    if (callOptions.peer !== null)
      headers[connectionHeader] = connectionStamp({ peer: callOptions.peer ?? defaultPeer, localAddress: '127.0.0.1', localPort: 3000 });
    if (callOptions.origin !== null && method !== 'GET') headers.origin = callOptions.origin ?? origin;
    const session = callOptions.session === true ? options.session() : callOptions.session || undefined;
    if (session) headers.cookie = `kvm2_session=${session}`;
    if (callOptions.bearer) headers.authorization = `Bearer ${callOptions.bearer}`;
    const body = callOptions.rawBody ?? (callOptions.body === undefined ? undefined : JSON.stringify(callOptions.body));
    if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    return new Request(`${origin}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    });
  };
  const open: Client['open'] = (handler, path, callOptions = {}) =>
    handler(request(path, 'GET', callOptions), { params: Promise.resolve(callOptions.params ?? {}) });
  const call: Client['call'] = async (handler, path, method, callOptions = {}) => {
    const response = await handler(request(path, method, callOptions), { params: Promise.resolve(callOptions.params ?? {}) });
    const stream = response.status === 200 && response.body !== null && response.headers.get('content-type')?.startsWith('text/event-stream');
    const text = stream ? await readUntilReady(response.body) : await response.text();
    responses.push(text);
    let json: unknown;
    try {
      json = stream ? eventData(text) : text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    // Every failure, whatever the route, carries the contract's error body.
    if (response.status >= 400) apiErrorBodySchema.parse(json);
    return { status: response.status, headers: response.headers, text, json };
  };
  const logIn: Client['logIn'] = async (passwordText = options.defaultPassword) => {
    const answer = await call(login.POST, '/api/auth/login', 'POST', { body: { password: passwordText } });
    if (answer.status !== 200) throw new Error(`login failed: ${answer.status} ${answer.text}`);
    const cookie = /kvm2_session=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
    if (!cookie) throw new Error('login set no cookie');
    return cookie;
  };
  return { call, open, logIn };
}

/** First-start setup as the admin does it, with the code the server would have logged. */
export async function setUpPassword(auth: AuthService, password: string): Promise<void> {
  const setupCode = await auth.pendingSetupCode();
  if (setupCode === undefined) throw new Error('no setup code: a password is set already, or init() did not run');
  await auth.setup({ password, setupCode, client: 'test setup' });
}

export interface ApiHarness {
  runtime: Runtime;
  fake: FakeProvider;
  kvm2: Kvm2Provider;
  hypervisor: FakeHypervisor;
  auth: AuthService;
  /** every response body the harness received, in order */
  responses: string[];
  /** every log line written (runtime, providers, HTTP layer) */
  logs: string[];
  /** the session opened at start (when a password was configured) */
  session: string | undefined;
  call: Client['call'];
  open: Client['open'];
  logIn: Client['logIn'];
  /** everything in the store, the fakes' instances and the hypervisor's volumes and domains, as JSON */
  snapshot(): Promise<string>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** ADMIN_PASSWORD for the auth service */
  environmentPassword?: string;
  /** false: start without an admin password (first start) */
  passwordConfigured?: boolean;
  /** key and known_hosts files for the kvm2 entry (the fake backend never reads them) */
  kvm2Files?: { sshKeyFile: string; knownHostsFile: string };
}

function kvm2Settings(files: StartOptions['kvm2Files']) {
  return withDefaults({
    name: 'kvm2-home',
    type: 'kvm2',
    kvm2: {
      ...(files ? { sshKeyFile: files.sshKeyFile, knownHostsFile: files.knownHostsFile } : { sshKeyFile: '/dev/null', insecureIgnoreHostKey: true }),
      images: { debian: { url: 'http://user:hunter2@127.0.0.1:9/debian.qcow2?sig=abc', sha256: 'a'.repeat(64) } },
      machineTypes: { small: { vcpus: 1, memoryMiB: 256 } },
      hosts: [{ name: 'hv-1', address: '10.0.0.1:22', user: 'virt', bridge: 'br0', virtType: 'qemu' }],
    },
  } as Parameters<typeof withDefaults>[0]);
}

export async function startApi(options: StartOptions = {}): Promise<ApiHarness> {
  const dir = tempDir('api-');
  const logs: string[] = [];
  const logger = createLogger({ level: 'trace', destination: { write: (line: string) => void logs.push(line) } });
  const fake = new FakeProvider({
    name: 'fake-1',
    targets: [{ name: 'host-a', ready: true, reason: 'Reachable', message: '', details: {}, latencyMs: 2, checkedAt: '' }],
  });
  const hypervisor = new FakeHypervisor();
  hypervisor.addPool({ name: 'isos', state: StoragePoolState.Inactive });
  const kvm2 = createKvm2Provider({ settings: kvm2Settings(options.kvm2Files), backend: new FakeHostBackend({ 'hv-1': hypervisor }), logger });
  const registry = new ProviderRegistry();
  registry.register('fake', () => ({ provider: fake, close: () => fake.close() }));
  registry.register('kvm2', () => ({ provider: kvm2, close: () => kvm2.close() }), kvm2Capabilities);
  // The kvm2 entry as the config file holds it (saves edit that file; the loader above is what runs).
  const kvm2Files = options.kvm2Files ?? { sshKeyFile: join(dir.path, 'ssh', 'id_ed25519'), knownHostsFile: join(dir.path, 'ssh', 'known_hosts') };
  const kvm2Host = { name: 'hv-1', address: '10.0.0.1:22', user: 'virt', bridge: 'br0', virtType: 'qemu' };
  const kvm2Entry = { name: 'kvm2-home', type: 'kvm2', kvm2: { ...kvm2Files, machineTypes: { small: { vcpus: 1, memoryMiB: 256 } }, hosts: [kvm2Host] } };
  writeFileSync(
    join(dir.path, 'providers.yaml'),
    `# the kvm2 entry of the API tests\n- name: kvm2-home\n  type: kvm2\n  kvm2:\n    sshKeyFile: ${kvm2Files.sshKeyFile}\n    knownHostsFile: ${kvm2Files.knownHostsFile}\n    machineTypes:\n      small: {vcpus: 1, memoryMiB: 256}\n    hosts:\n      - name: hv-1\n        address: 10.0.0.1:22\n        user: virt\n        bridge: br0\n        virtType: qemu\n`,
  );
  const quiet = '20d';
  const runtime = await startRuntimeOnce({
    settings: settingsFromEnv({
      DATA_DIR: dir.path,
      PROVIDERS_CONFIG: join(dir.path, 'providers.yaml'),
      GC_INTERVAL: quiet,
      RESYNC_INTERVAL: quiet,
      PROBE_INTERVAL: quiet,
      PROVIDER_CHECK_INTERVAL: quiet,
      HOUSEKEEPING_INTERVAL: quiet,
      // Unit tests run in parallel: none listens on the gateway's fixed port (its lab test does).
      GATEWAY_PORT: '0',
    }),
    registry,
    configLoader: async () => [{ name: 'fake-1', type: 'fake' }, kvm2Entry],
    logger,
    metrics: createMetrics(),
    probe: async () => ({ healthy: true, reason: 'TargetReachable' as const, message: 'stub', latencyMs: 3, egressIP: '203.0.113.9' }),
    // The fake provider's addresses are documentation ones: nothing may be sent to them.
    portCheck: async () => ({ outcome: 'open' as const, latencyMs: 1 }),
    auth: { cost: cheapCost, ...(options.environmentPassword ? { adminPassword: options.environmentPassword } : {}) },
  });
  if (runtime.settings.dataDir !== dir.path) throw new Error('a runtime is already running in this process');
  const { auth } = runtime.services;
  if (options.passwordConfigured !== false && !options.environmentPassword) await setUpPassword(auth, adminPassword);

  const responses: string[] = [];
  const { call, open, logIn } = createClient({ responses, session: () => harness.session, defaultPassword: options.environmentPassword ?? adminPassword });

  const snapshot = async () => {
    const db = runtime.store.sql;
    const tables = (await db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)).map(
      (row) => row.name,
    );
    const stored: Record<string, unknown> = {};
    // Replicas heartbeat on their own; provider health is written by the monitor's checks.
    for (const table of tables.filter((name) => !name.startsWith('provider_health') && name !== 'replicas'))
      stored[table] = await db.all(`SELECT * FROM ${table} ORDER BY rowid`);
    const volumes = [...hypervisor.pools.values()].map((pool) => [pool.name, [...pool.volumes.keys()].sort()]);
    return JSON.stringify({ stored, fake: [...fake.instances.keys()].sort(), volumes, domains: [...hypervisor.domains.keys()].sort() });
  };

  const harness: ApiHarness = {
    runtime,
    fake,
    kvm2,
    hypervisor,
    auth,
    responses,
    logs,
    session: undefined,
    call,
    open,
    logIn,
    snapshot,
    async close() {
      await stopRuntimeForTests();
      dir.remove();
    },
  };
  // The monitor's first check runs at start; wait for it so snapshots do not race it.
  await vi.waitFor(async () => expect(await runtime.store.health.latest(), 'the first provider health check').toHaveLength(2), { timeout: 5_000 });
  if (options.passwordConfigured !== false || options.environmentPassword) harness.session = await logIn();
  return harness;
}
