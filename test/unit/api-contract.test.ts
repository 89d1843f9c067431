// The API contract (lib/api) against the real route handlers: every route's successful answer,
// from first start (setup) through a Proxy's whole life to logout, parsed with the schema the
// browser parses it with (strict: a field the server adds or drops fails here), and every route
// in the harness's table covered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  authStatusSchema,
  createdTokenSchema,
  passwordChangedSchema,
  passwordSetSchema,
  revokedTokenSchema,
  sessionSchema,
  tokenListSchema,
} from '@/lib/api/auth';
import { clusterSchema } from '@/lib/api/cluster';
import { configSummarySchema } from '@/lib/api/config';
import { consoleEventSchema, consoleInputResultSchema, consoleTakeoverSchema } from '@/lib/api/console';
import { parseEventStream } from '@/lib/api/event-stream';
import { gatewayViewSchema } from '@/lib/api/gateway';
import { livenessSchema } from '@/lib/api/health';
import { loggedOutSchema } from '@/lib/api/logout';
import { diagnosisSchema } from '@/lib/api/diagnosis';
import { liveMessageSchema } from '@/lib/api/live';
import {
  authenticateStepSchema,
  capabilitiesStepSchema,
  checkStepSchema,
  hostKeyStepSchema,
  identityListSchema,
  identitySchema,
  libvirtStepSchema,
  resourcesStepSchema,
  savedHostsSchema,
  trustStepSchema,
} from '@/lib/api/host-setup';
import { placementPreviewSchema } from '@/lib/api/placement';
import { evictOutcomeSchema, healthHistorySchema, hostInventorySchema, providerListSchema } from '@/lib/api/providers';
import { discoveryListSchema, probeHistorySchema, proxyDownloadSchema, proxyEventListSchema, proxyListSchema, proxyViewSchema } from '@/lib/api/proxies';
import { proxySetListSchema, proxySetPlanSchema, proxySetPreviewSchema, proxySetViewSchema } from '@/lib/api/proxysets';
import { hostStatsSchema, proxyStatsSchema, trafficOverviewSchema } from '@/lib/api/stats';
import { alphaProxyBody } from '@/test/support/console-proxy';
import { adminPassword, type Answer, handlers as h, routeTable, startApi, type ApiHarness } from './api-harness';
import { images, populateHost } from './inventory-fixture';
import { generateKey, Resources, startTestSshServer, type TestKey, type TestSshServer } from './ssh-harness';

let api: ApiHarness;
// A real SSH server for the wizard's steps: it accepts the identity the API generates.
const ssh = new Resources();
const authorized: TestKey[] = [];
let sshServer: TestSshServer;
beforeAll(async () => {
  api = await startApi({ passwordConfigured: false });
  populateHost(api.hypervisor);
  liveFrom = api.runtime.services.live.head();
  sshServer = await startTestSshServer(ssh, { hostKey: generateKey(), authorizedKeys: () => authorized });
});
afterAll(async () => {
  await ssh.cleanup();
  await api?.close();
});

const session = () => ({ session: true as const });
const candidate = () => ({ provider: 'kvm2-home', address: sshServer.address, user: 'virt', name: 'hv-2', pool: 'default', bridge: 'br0' });
let hostFingerprint = '';
const alpha = { params: { name: 'alpha' } };
const crawl = { params: { name: 'crawl' } };
const hostParams = { provider: 'kvm2-home', host: 'hv-1' };
let token = '';
/** the live feed's id before any case ran: GET /api/events resumes from it */
let liveFrom = '';
let tokenId = '';
let gatewayTokenId = '';

/** One sampling round of a Proxy's VM and its host, as the sampler stores it. */
async function seedStats(proxy: string, provider: string, target: string): Promise<void> {
  const record = (await api.runtime.store.proxies.get(proxy))!;
  const sampledAtMs = Date.now() - 1_000;
  await api.runtime.store.stats.record({
    host: { provider, target, sampledAtMs, cpuPercent: 40, memoryUsedBytes: 3_000, memoryTotalBytes: 8_000 },
    vms: [
      {
        proxyUid: record.uid,
        provider,
        target,
        domain: `proxy-of-${proxy}`,
        sampledAtMs,
        spanMs: 10_000,
        cpuPercent: 12.5,
        memoryBytes: 1_000,
        memoryTotalBytes: 2_000,
        netRxBps: 1_000,
        netTxBps: 250,
        diskReadBps: 0,
        diskWriteBps: 0,
      },
    ],
  });
}

/** The answer, after keeping the session cookie it set. */
function keepSession(answer: Answer): Answer {
  api.session = /kvm2_session=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
  return answer;
}

interface ContractCase {
  /** `METHOD path` as in the harness's route table */
  route: string;
  status: number;
  schema: z.ZodType;
  call: () => Promise<Answer>;
  /** what the parsed answer must show beyond its shape */
  check?: (body: any) => void | Promise<void>;
}

// In order: each case may rely on what the ones before it did.
const cases: ContractCase[] = [
  {
    route: 'POST /api/auth/setup',
    status: 201,
    schema: passwordSetSchema,
    call: async () => api.call(h.setup.POST, '/api/auth/setup', 'POST', { body: { password: adminPassword, setupCode: await api.auth.pendingSetupCode() } }),
  },
  {
    route: 'POST /api/auth/login',
    status: 200,
    schema: sessionSchema,
    call: async () => keepSession(await api.call(h.login.POST, '/api/auth/login', 'POST', { body: { password: adminPassword } })),
  },
  {
    route: 'GET /api/auth/status',
    status: 200,
    schema: authStatusSchema,
    call: () => api.call(h.status.GET, '/api/auth/status', 'GET', session()),
    check: (body) => expect(body).toEqual({ passwordConfigured: true, authenticated: true, passwordSource: 'setup' }),
  },
  {
    route: 'GET /api/cluster',
    status: 200,
    schema: clusterSchema,
    call: () => api.call(h.cluster.GET, '/api/cluster', 'GET', session()),
    check: (body) => expect(body).toMatchObject({ store: 'sqlite', leader: body.replicas[0].id, replicas: [{ alive: true, leader: true, self: true }] }),
  },
  {
    route: 'GET /api/config',
    status: 200,
    schema: configSummarySchema,
    call: () => api.call(h.config.GET, '/api/config', 'GET', session()),
    check: (body) => expect(body.providers.map((entry: { catalogue?: unknown }) => entry.catalogue !== undefined)).toEqual([false, true]),
  },
  {
    route: 'GET /api/providers',
    status: 200,
    schema: providerListSchema,
    call: () => api.call(h.providers.GET, '/api/providers', 'GET', session()),
  },
  {
    route: 'GET /api/providers/fake-1/health',
    status: 200,
    schema: healthHistorySchema,
    call: () => api.call(h.providerHealth.GET, '/api/providers/fake-1/health', 'GET', { ...session(), params: { provider: 'fake-1' } }),
    check: (body) => expect(body.samples.length).toBeGreaterThan(0),
  },
  {
    route: 'POST /api/proxies',
    status: 201,
    schema: proxyViewSchema,
    call: () =>
      api.call(h.proxies.POST, '/api/proxies', 'POST', {
        ...session(),
        body: { ...alphaProxyBody, labels: { pool: 'a' } },
      }),
  },
  {
    route: 'GET /api/proxies/alpha',
    status: 200,
    schema: proxyViewSchema,
    call: async () => {
      await expect.poll(async () => (await api.runtime.services.proxies.get('alpha')).status.phase).toBe('Ready');
      return api.call(h.proxy.GET, '/api/proxies/alpha', 'GET', { ...session(), ...alpha });
    },
    check: (body) => expect(body.status).toMatchObject({ phase: 'Ready', healthy: true, probeLatencyMs: 3, egressIP: '203.0.113.9' }),
  },
  {
    route: 'GET /api/proxies',
    status: 200,
    schema: proxyListSchema,
    call: () => api.call(h.proxies.GET, '/api/proxies', 'GET', session()),
    check: (body) => expect(body.proxies.map((view: { name: string }) => view.name)).toEqual(['alpha']),
  },
  {
    route: 'GET /api/proxies/alpha/probes',
    status: 200,
    schema: probeHistorySchema,
    call: () => api.call(h.proxyProbes.GET, '/api/proxies/alpha/probes', 'GET', { ...session(), ...alpha }),
    check: (body) => expect(body.samples.at(-1)).toEqual({ probedAt: expect.any(String), healthy: true, latencyMs: 3 }),
  },
  {
    route: 'GET /api/proxies/alpha/download',
    status: 200,
    schema: proxyDownloadSchema,
    call: () => api.call(h.proxyDownload.GET, '/api/proxies/alpha/download', 'GET', { ...session(), ...alpha }),
    check: (body) => expect(body).toEqual({ download: null }),
  },
  {
    route: 'GET /api/proxies/alpha/console',
    status: 200,
    schema: z.array(consoleEventSchema),
    call: async () => {
      const providerID = (await api.runtime.services.proxies.get('alpha')).status.providerID!;
      // Boot capture opened it when the fake started the instance.
      await expect.poll(() => api.runtime.services.consoles.status('alpha').state).toBe('live');
      api.fake.consoles.of(providerID).print('login: ');
      await expect.poll(() => api.runtime.services.consoles.consoleLog('alpha')).toBe('login: ');
      const answer = await api.call(h.proxyConsole.GET, '/api/proxies/alpha/console', 'GET', { ...session(), ...alpha });
      expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      return { ...answer, json: parseEventStream(answer.text).events };
    },
    check: (body) =>
      expect(body).toEqual([
        { event: 'snapshot', data: { data: Buffer.from('login: ').toString('base64') } },
        { event: 'status', data: { state: 'live' } },
      ]),
  },
  {
    route: 'POST /api/proxies/alpha/console/input',
    status: 200,
    schema: consoleInputResultSchema,
    call: () => api.call(h.proxyConsoleInput.POST, '/api/proxies/alpha/console/input', 'POST', { ...session(), ...alpha, body: { data: 'root\r' } }),
    check: async (body) => {
      expect(body).toEqual({ sentBytes: 5 });
      const providerID = (await api.runtime.services.proxies.get('alpha')).status.providerID!;
      expect(Buffer.concat(api.fake.consoles.of(providerID).input).toString()).toBe('root\r');
    },
  },
  {
    route: 'POST /api/proxies/alpha/console/takeover',
    status: 200,
    schema: consoleTakeoverSchema,
    call: async () => {
      api.fake.consoles.of((await api.runtime.services.proxies.get('alpha')).status.providerID!).holdElsewhere();
      return api.call(h.proxyConsoleTakeover.POST, '/api/proxies/alpha/console/takeover', 'POST', { ...session(), ...alpha });
    },
    check: (body) => expect(body).toEqual({ state: 'live' }),
  },
  {
    route: 'GET /api/proxies/alpha/diagnosis',
    status: 200,
    schema: diagnosisSchema,
    call: () => api.call(h.proxyDiagnosis.GET, '/api/proxies/alpha/diagnosis', 'GET', { ...session(), ...alpha }),
    check: (body) => {
      // The fake provider cannot look at its instances: what it cannot tell is unknown, the network steps run.
      expect(body.steps.map((step: { id: string; status: string }) => `${step.id}:${step.status}`)).toEqual([
        'host:pass',
        'domain:unknown',
        'seed:skipped',
        'cloud-init:skipped',
        'agent:skipped',
        'address:unknown',
        'port:pass',
        'probe:pass',
        'egress:skipped',
      ]);
      expect(body.firstFailure).toBeNull();
    },
  },
  {
    route: 'GET /api/proxies/alpha/stats',
    status: 200,
    schema: proxyStatsSchema,
    call: async () => {
      await seedStats('alpha', 'fake-1', 'host-a');
      return api.call(h.proxyStats.GET, '/api/proxies/alpha/stats?window=24h', 'GET', { ...session(), ...alpha });
    },
    check: (body) => {
      expect(body).toMatchObject({ proxy: 'alpha', window: '24h', stepSeconds: 60 });
      expect(body.points.at(-1)).toMatchObject({ cpuPercent: 12.5, netRxBps: 1_000, netTxBps: 250 });
    },
  },
  {
    route: 'GET /api/stats/traffic',
    status: 200,
    schema: trafficOverviewSchema,
    call: () => api.call(h.traffic.GET, '/api/stats/traffic', 'GET', session()),
    check: (body) => {
      expect(body.busiest).toEqual([{ proxy: 'alpha', rxBytes: 10_000, txBytes: 2_500 }]);
      expect(body).toMatchObject({ windowSeconds: 3600, rxBytes: 10_000, txBytes: 2_500 });
    },
  },
  {
    route: 'PUT /api/proxies/alpha',
    status: 200,
    schema: proxyViewSchema,
    call: () =>
      api.call(h.proxy.PUT, '/api/proxies/alpha', 'PUT', {
        ...session(),
        ...alpha,
        body: { mode: 'Managed', provider: 'fake-1', placement: { zone: 'host-a', machineType: 'small', image: 'debian-13' }, labels: { pool: 'b' } },
      }),
  },
  {
    route: 'GET /api/proxies/alpha/events',
    status: 200,
    schema: proxyEventListSchema,
    call: () => api.call(h.proxyEvents.GET, '/api/proxies/alpha/events', 'GET', { ...session(), ...alpha }),
    check: (body) => expect(body.events.map((event: { reason: string }) => event.reason)).toContain('SpecUpdated'),
  },
  {
    route: 'GET /api/providers/kvm2-home/hosts/hv-1',
    status: 200,
    schema: hostInventorySchema,
    call: async () => {
      // The fixture's managed domain belongs to uid-a: a Proxy record the reconciler never sees (no resync here).
      await api.runtime.store.proxies.insert({
        uid: 'uid-a',
        name: 'beta',
        spec: { mode: 'Static', address: '192.0.2.10', port: 3128, labels: {} },
        now: new Date().toISOString(),
      });
      api.kvm2.downloads.start({ host: 'hv-1', volume: 'base-kvm2-home-other.qcow2', urlHost: '127.0.0.1:9', totalBytes: 1000 })(100);
      return api.call(h.host.GET, '/api/providers/kvm2-home/hosts/hv-1', 'GET', { ...session(), params: hostParams });
    },
    check: (body) => {
      api.kvm2.downloads.finish('hv-1', 'base-kvm2-home-other.qcow2');
      expect(new Set(body.domains.map((domain: { kind: string }) => domain.kind))).toEqual(new Set(['managed', 'orphaned', 'kvm-gen-1', 'foreign']));
      expect(body.images.length).toBeGreaterThan(0);
      expect(body.downloads).toEqual([expect.objectContaining({ volume: 'base-kvm2-home-other.qcow2', doneBytes: 100 })]);
    },
  },
  {
    route: 'GET /api/providers/kvm2-home/hosts/hv-1/stats',
    status: 200,
    schema: hostStatsSchema,
    call: async () => {
      await seedStats('beta', 'kvm2-home', 'hv-1');
      return api.call(h.hostStats.GET, '/api/providers/kvm2-home/hosts/hv-1/stats', 'GET', { ...session(), params: hostParams });
    },
    check: (body) => {
      expect(body).toMatchObject({ provider: 'kvm2-home', host: 'hv-1', window: '1h' });
      // The runtime's own sampler reads the in-memory hypervisor too: the seeded round is averaged into its step.
      expect(body.points.at(-1).memoryTotalBytes).toBeGreaterThan(0);
      expect(body.domains).toEqual([expect.objectContaining({ domain: 'proxy-of-beta', proxy: 'beta' })]);
    },
  },
  {
    route: 'GET /api/providers/kvm2-home/placement',
    status: 200,
    schema: placementPreviewSchema,
    call: async () => {
      await api.runtime.loops.monitor.runNow();
      return api.call(h.placement.GET, '/api/providers/kvm2-home/placement?machineType=small', 'GET', { ...session(), params: { provider: 'kvm2-home' } });
    },
    check: (body) => {
      expect(body).toMatchObject({ provider: 'kvm2-home', machineType: 'small', policy: 'spread', refusals: [] });
      expect(body.choice.host).toBe('hv-1');
      expect(body.choice.reason).toMatch(/^hv-1: [\d.]+ GiB free, [\d.]+ GiB memory free, \d+ VMs? \(spread\)$/);
    },
  },
  {
    route: 'GET /api/ssh-identity',
    status: 200,
    schema: identityListSchema,
    call: () => api.call(h.sshIdentity.GET, '/api/ssh-identity', 'GET', session()),
    check: (body) => expect(body.identities).toEqual([{ provider: 'kvm2-home', exists: false }]),
  },
  {
    route: 'POST /api/ssh-identity',
    status: 201,
    schema: identitySchema,
    call: () => api.call(h.sshIdentity.POST, '/api/ssh-identity', 'POST', { ...session(), body: { provider: 'kvm2-home' } }),
    check: (body) => {
      expect(body).toMatchObject({ provider: 'kvm2-home', exists: true, keyType: 'ssh-ed25519', fingerprint: expect.stringMatching(/^SHA256:/) });
      authorized.push({ public: body.publicKey, private: '', publicFields: '' });
    },
  },
  {
    route: 'POST /api/host-setup/host-key',
    status: 200,
    schema: hostKeyStepSchema,
    call: () =>
      api.call(h.setupHostKey.POST, '/api/host-setup/host-key', 'POST', { ...session(), body: { provider: 'kvm2-home', address: sshServer.address } }),
    check: (body) => {
      expect(body).toMatchObject({
        ok: true,
        hostKey: { keyType: 'ssh-ed25519', standing: 'unknown', hostCommand: 'ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub' },
      });
      hostFingerprint = body.hostKey.fingerprint;
    },
  },
  {
    route: 'POST /api/host-setup/host-key/trust',
    status: 200,
    schema: trustStepSchema,
    call: () =>
      api.call(h.setupTrust.POST, '/api/host-setup/host-key/trust', 'POST', {
        ...session(),
        body: { provider: 'kvm2-home', address: sshServer.address, fingerprint: hostFingerprint },
      }),
    check: (body) => expect(body).toEqual({ ok: true, written: true }),
  },
  {
    route: 'POST /api/host-setup/authenticate',
    status: 200,
    schema: authenticateStepSchema,
    call: () => api.call(h.setupAuthenticate.POST, '/api/host-setup/authenticate', 'POST', { ...session(), body: candidate() }),
    check: (body) => expect(body).toEqual({ ok: true }),
  },
  {
    route: 'POST /api/host-setup/libvirt',
    status: 200,
    schema: libvirtStepSchema,
    // The test server forwards to a libvirt socket that is not there: the step names the fix.
    call: () =>
      api.call(h.setupLibvirt.POST, '/api/host-setup/libvirt', 'POST', { ...session(), body: { ...candidate(), socket: '/nonexistent/libvirt-sock' } }),
    check: (body) => expect(body.failure).toMatchObject({ reason: 'Unreachable', fix: expect.stringContaining('libvirtd is not running') }),
  },
  ...(['resources', 'capabilities', 'check'] as const).map((step): ContractCase => ({
    route: `POST /api/host-setup/${step}`,
    status: 200,
    schema: { resources: resourcesStepSchema, capabilities: capabilitiesStepSchema, check: checkStepSchema }[step],
    call: () =>
      api.call(h[`setup${step[0]!.toUpperCase()}${step.slice(1)}` as 'setupCheck'].POST, `/api/host-setup/${step}`, 'POST', {
        ...session(),
        body: { ...candidate(), socket: '/nonexistent/libvirt-sock' },
      }),
    check: (body) => expect(body).toMatchObject({ ok: false, failure: { reason: 'Unreachable' } }),
  })),
  {
    route: 'DELETE /api/providers/kvm2-home/hosts/hv-1/images/base-kvm2-home-debian.qcow2',
    status: 200,
    schema: evictOutcomeSchema,
    call: () =>
      api.call(h.hostImage.DELETE, `/api/providers/kvm2-home/hosts/hv-1/images/${images.unused}`, 'DELETE', {
        ...session(),
        params: { ...hostParams, volume: images.unused },
      }),
  },
  {
    route: 'POST /api/tokens',
    status: 201,
    schema: createdTokenSchema,
    call: async () => {
      const answer = await api.call(h.tokens.POST, '/api/tokens', 'POST', { ...session(), body: { name: 'crawler' } });
      token = answer.json.token;
      tokenId = answer.json.id;
      return answer;
    },
  },
  {
    route: 'GET /api/tokens',
    status: 200,
    schema: tokenListSchema,
    call: () => api.call(h.tokens.GET, '/api/tokens', 'GET', session()),
  },
  {
    route: 'POST /api/gateway/tokens',
    status: 201,
    schema: createdTokenSchema,
    call: async () => {
      const answer = await api.call(h.gatewayTokens.POST, '/api/gateway/tokens', 'POST', { ...session(), body: { name: 'crawler' } });
      gatewayTokenId = answer.json.id;
      return answer;
    },
  },
  {
    route: 'GET /api/gateway/tokens',
    status: 200,
    schema: tokenListSchema,
    call: () => api.call(h.gatewayTokens.GET, '/api/gateway/tokens', 'GET', session()),
  },
  {
    route: 'GET /api/gateway',
    status: 200,
    schema: gatewayViewSchema,
    call: () => api.call(h.gateway.GET, '/api/gateway', 'GET', session()),
  },
  {
    route: 'POST /api/proxysets/preview',
    status: 200,
    schema: proxySetPreviewSchema,
    call: () =>
      api.call(h.proxySetPreview.POST, '/api/proxysets/preview', 'POST', {
        ...session(),
        body: { name: 'edge', template: { provider: 'kvm2-home', placement: { machineType: 'small', image: 'debian' } }, replicas: 2 },
      }),
    check: (body) => expect(body).toEqual({ provider: 'kvm2-home', replicas: 2, hosts: [{ host: 'hv-1', members: 2, eligible: true }], unplaced: 0 }),
  },
  // A ProxySet's life on the fake provider (no host choice: members go where it puts them).
  {
    route: 'POST /api/proxysets',
    status: 201,
    schema: proxySetViewSchema,
    call: () =>
      api.call(h.proxySets.POST, '/api/proxysets', 'POST', {
        ...session(),
        body: {
          name: 'crawl',
          template: { provider: 'fake-1', placement: { machineType: 'small', image: 'debian-13' }, cloudInit: '#cloud-config\n', labels: { pool: 'c' } },
          replicas: 2,
        },
      }),
    check: (body) =>
      expect(body).toMatchObject({
        name: 'crawl',
        replicas: 2,
        readyTimeout: '10m',
        replacementBudget: { max: 2, window: '30m' },
        template: { cloudInit: { bytes: 14 } },
      }),
  },
  {
    route: 'GET /api/proxysets/crawl',
    status: 200,
    schema: proxySetViewSchema,
    call: async () => {
      await expect.poll(async () => (await api.runtime.services.proxySets.get('crawl')).status.ready, { timeout: 20_000 }).toBe(2);
      return api.call(h.proxySet.GET, '/api/proxysets/crawl', 'GET', { ...session(), ...crawl });
    },
    check: (body) => expect(body.status).toMatchObject({ members: 2, ready: 2, updated: 2, failing: 0, rollout: { state: 'Complete' } }),
  },
  {
    route: 'GET /api/discovery/proxies',
    status: 200,
    schema: discoveryListSchema,
    call: () => api.call(h.discovery.GET, '/api/discovery/proxies?set=crawl', 'GET', session()),
    check: (body) => {
      expect(body.proxies).toHaveLength(2);
      expect(
        body.proxies.every((proxy: { name: string; labels: Record<string, string> }) => proxy.name.startsWith('crawl-') && proxy.labels.proxyset === 'crawl'),
      ).toBe(true);
    },
  },
  {
    route: 'GET /api/proxysets',
    status: 200,
    schema: proxySetListSchema,
    call: () => api.call(h.proxySets.GET, '/api/proxysets', 'GET', session()),
    check: (body) => expect(body.proxysets.map((set: { name: string }) => set.name)).toEqual(['crawl']),
  },
  {
    route: 'POST /api/proxysets/crawl/plan',
    status: 200,
    schema: proxySetPlanSchema,
    call: () =>
      api.call(h.proxySetPlan.POST, '/api/proxysets/crawl/plan', 'POST', {
        ...session(),
        ...crawl,
        body: {
          template: { provider: 'fake-1', placement: { machineType: 'small', image: 'debian-13' }, cloudInit: '#cloud-config\nruncmd: []\n' },
          replicas: 2,
        },
      }),
    check: (body) => expect(body).toMatchObject({ change: 'template', replaced: 2 }),
  },
  {
    route: 'PUT /api/proxysets/crawl',
    status: 200,
    schema: proxySetViewSchema,
    call: () =>
      api.call(h.proxySet.PUT, '/api/proxysets/crawl', 'PUT', {
        ...session(),
        ...crawl,
        body: { template: { provider: 'fake-1', placement: { machineType: 'small', image: 'debian-13' }, labels: { pool: 'd' } }, replicas: 2, maxSurge: 2 },
      }),
    check: (body) => expect(body).toMatchObject({ generation: 2, maxSurge: 2, template: { labels: { pool: 'd' }, cloudInit: { bytes: 14 } } }),
  },
  {
    route: 'POST /api/proxysets/crawl/scale',
    status: 200,
    schema: proxySetViewSchema,
    call: () => api.call(h.proxySetScale.POST, '/api/proxysets/crawl/scale', 'POST', { ...session(), ...crawl, body: { replicas: 1 } }),
    check: (body) => expect(body.replicas).toBe(1),
  },
  {
    route: 'POST /api/proxysets/crawl/pause',
    status: 200,
    schema: proxySetViewSchema,
    call: () => api.call(h.proxySetPause.POST, '/api/proxysets/crawl/pause', 'POST', { ...session(), ...crawl }),
    check: (body) => expect(body.paused).toBe(true),
  },
  {
    route: 'POST /api/proxysets/crawl/resume',
    status: 200,
    schema: proxySetViewSchema,
    call: () => api.call(h.proxySetResume.POST, '/api/proxysets/crawl/resume', 'POST', { ...session(), ...crawl }),
    check: (body) => expect(body.paused).toBe(false),
  },
  {
    route: 'POST /api/proxysets/crawl/replace',
    status: 200,
    schema: proxySetViewSchema,
    call: async () => {
      const member = (await api.runtime.services.proxies.list({ labels: { proxyset: 'crawl' } })).find((proxy) => proxy.status.phase !== 'Deleting')!;
      return api.call(h.proxySetReplace.POST, '/api/proxysets/crawl/replace', 'POST', { ...session(), ...crawl, body: { members: [member.name] } });
    },
  },
  {
    route: 'GET /api/proxysets/crawl/events',
    status: 200,
    schema: proxyEventListSchema,
    call: () => api.call(h.proxySetEvents.GET, '/api/proxysets/crawl/events', 'GET', { ...session(), ...crawl }),
    check: (body) =>
      expect(body.events.map((event: { reason: string }) => event.reason)).toEqual(
        expect.arrayContaining(['Created', 'MemberCreated', 'MemberReplaced', 'SpecUpdated']),
      ),
  },
  {
    route: 'DELETE /api/proxysets/crawl',
    status: 202,
    schema: proxySetViewSchema,
    call: () => api.call(h.proxySet.DELETE, '/api/proxysets/crawl', 'DELETE', { ...session(), ...crawl }),
    check: (body) => expect(body).toMatchObject({ deletionRequestedAt: expect.any(String), status: { members: 0 } }),
  },
  {
    route: 'GET /api/discovery/proxies',
    status: 200,
    schema: discoveryListSchema,
    call: async () => {
      await expect.poll(async () => (await api.runtime.services.proxies.get('alpha')).status.phase).toBe('Ready');
      return api.call(h.discovery.GET, '/api/discovery/proxies', 'GET', { bearer: token });
    },
    check: (body) => expect(body.proxies).toEqual([expect.objectContaining({ name: 'alpha', labels: { pool: 'b' } })]),
  },
  // Saves reload the config, which has every Proxy looked at again: after the discovery case.
  {
    route: 'POST /api/providers/kvm2-home/hosts',
    status: 201,
    schema: savedHostsSchema,
    call: () =>
      api.call(h.hosts.POST, '/api/providers/kvm2-home/hosts', 'POST', {
        ...session(),
        params: { provider: 'kvm2-home' },
        body: { name: 'hv-2', address: '10.0.0.2:22', user: 'virt', bridge: 'br0' },
      }),
    check: (body) => expect(body).toEqual({ provider: 'kvm2-home', hosts: ['hv-1', 'hv-2'], backupKept: true }),
  },
  {
    route: 'PUT /api/providers/kvm2-home/hosts/hv-1',
    status: 200,
    schema: savedHostsSchema,
    call: () =>
      api.call(h.host.PUT, '/api/providers/kvm2-home/hosts/hv-1', 'PUT', {
        ...session(),
        params: hostParams,
        body: { address: '10.0.0.9:22', user: 'virt', bridge: 'br1', virtType: 'qemu' },
      }),
  },
  {
    route: 'DELETE /api/providers/kvm2-home/hosts/hv-1',
    status: 200,
    schema: savedHostsSchema,
    call: () => api.call(h.host.DELETE, '/api/providers/kvm2-home/hosts/hv-1', 'DELETE', { ...session(), params: hostParams }),
    check: (body) => expect(body.hosts).toEqual(['hv-2']),
  },
  {
    route: 'GET /api/events',
    status: 200,
    schema: z.array(liveMessageSchema),
    call: () => api.call(h.liveEvents.GET, '/api/events', 'GET', { bearer: token, headers: { 'last-event-id': liveFrom } }),
    check: (body: Array<{ kind: string; name?: string }>) => {
      expect(body.at(-1)).toEqual({ kind: 'ready', resumed: true });
      expect(body.some((message) => message.kind === 'proxy' && message.name === 'alpha')).toBe(true);
      // a token is a reader: host health stays with sessions (live-feed-token-scope.test.ts)
      expect(body.some((message) => message.kind === 'health')).toBe(false);
    },
  },
  {
    route: 'DELETE /api/tokens/0123456789abcdef',
    status: 200,
    schema: revokedTokenSchema,
    call: () => api.call(h.token.DELETE, `/api/tokens/${tokenId}`, 'DELETE', { ...session(), params: { id: tokenId } }),
  },
  {
    route: 'DELETE /api/gateway/tokens/0123456789abcdef',
    status: 200,
    schema: revokedTokenSchema,
    call: () => api.call(h.gatewayToken.DELETE, `/api/gateway/tokens/${gatewayTokenId}`, 'DELETE', { ...session(), params: { id: gatewayTokenId } }),
  },
  {
    route: 'DELETE /api/proxies/alpha',
    status: 202,
    schema: proxyViewSchema,
    call: () => api.call(h.proxy.DELETE, '/api/proxies/alpha', 'DELETE', { ...session(), ...alpha }),
    check: (body) => expect(body.status.phase).toBe('Deleting'),
  },
  {
    route: 'POST /api/auth/password',
    status: 200,
    schema: passwordChangedSchema,
    call: async () =>
      keepSession(
        await api.call(h.password.POST, '/api/auth/password', 'POST', {
          ...session(),
          body: { currentPassword: adminPassword, newPassword: `${adminPassword} 2` },
        }),
      ),
  },
  {
    route: 'POST /api/auth/logout',
    status: 200,
    schema: loggedOutSchema,
    call: () => api.call(h.logout.POST, '/api/auth/logout', 'POST', session()),
  },
  {
    route: 'GET /api/healthz',
    status: 200,
    schema: livenessSchema,
    call: () => api.call(h.healthz.GET as never, '/api/healthz', 'GET'),
  },
];

describe('the API contract', () => {
  it('covers every JSON route of the API (metrics answers text)', () => {
    const covered = new Set(cases.map((entry) => entry.route));
    const json = routeTable.map((row) => `${row.method} ${row.path}`).filter((route) => route !== 'GET /api/metrics');
    expect(json.filter((route) => !covered.has(route))).toEqual([]);
  });

  it.each(cases)('$route answers $status with a body its schema accepts', async ({ status, schema, call, check }) => {
    const answer = await call();
    expect(answer.status, answer.text.slice(0, 500)).toBe(status);
    const parsed = schema.safeParse(answer.json);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    await check?.(answer.json);
  });
});
