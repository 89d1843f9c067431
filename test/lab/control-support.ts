// Shared by the control-*.test.ts lab tests: the runtime (store, reconciler, monitor, GC, probes)
// in-process over the lab's real hosts, with its own DATA_DIR, a providers config derived from
// .lab/providers.yaml under entry names of its own (so its base images never collide with another
// test's), short intervals, and cleanup of every domain and volume it caused.
//
// Every kvm2 provider the runtime builds is scoped to this run's instance names: the lab's one
// libvirtd is shared with other tests and helpers, and orphan GC deletes every managed domain
// whose uid is not in *this* store, which would include theirs. The scope only narrows what
// ListByTag returns and refuses a Delete outside it; GC's own decision (by uid) is untouched.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { instanceName } from '@/server/control/names';
import { settingsFromEnv } from '@/server/control/settings';
import type { ProbeRequest, ProbeResult } from '@/server/control/probe';
import type { Kvm2Entry } from '@/server/providers/config';
import type { CallOptions, CreateRequest, Instance, InstanceWatch, InstanceWatcher, Provider, Target } from '@/server/providers/contract';
import type { HostCapacityReader } from '@/server/providers/host-capacity';
import type { HostStatsReader } from '@/server/providers/host-stats';
import type { InstanceConsole } from '@/server/providers/instance-console';
import type { InstanceInspector } from '@/server/providers/instance-inspection';
import { parseProviderID } from '@/server/providers/kvm2/provider-id';
import { kvm2Factory } from '@/server/providers/provider-types';
import { ProviderRegistry } from '@/server/providers/registry';
import { createRuntime, type Runtime } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
import { type Lab, loadLab, poolVolumes, removeDomain, removeVolume, runCommand, virshArgv } from './harness/lab';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/**
 * Which domains a run's provider may list and delete: its own. A domain the run's provider creates
 * is the run's too (`adopt`): a ProxySet names its members itself (`<set>-<5 random characters>`).
 */
export interface DomainScope {
  owns(domain: string): boolean;
  adopt(domain: string): void;
}

/** A kvm2 provider narrowed to the domains its scope owns; counts Get calls per providerID. */
export class ScopedProvider implements Provider {
  readonly gets = new Map<string, number>();

  constructor(
    private readonly inner: Provider,
    private readonly scope: DomainScope,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  get type(): string {
    return this.inner.type;
  }

  create(request: CreateRequest, options?: CallOptions): Promise<Instance> {
    this.scope.adopt(request.name);
    return this.inner.create(request, options);
  }

  get(providerID: string, options?: CallOptions): Promise<Instance> {
    this.gets.set(providerID, (this.gets.get(providerID) ?? 0) + 1);
    return this.inner.get(providerID, options);
  }

  async delete(providerID: string, options?: CallOptions): Promise<void> {
    const { domain } = parseProviderID(providerID);
    if (!this.scope.owns(domain)) throw new Error(`test scope: refusing to delete ${providerID}, which this run did not create`);
    return this.inner.delete(providerID, options);
  }

  async listByTag(tag: string, options?: CallOptions): Promise<Instance[]> {
    return (await this.inner.listByTag(tag, options)).filter((instance) => this.scope.owns(instance.name));
  }

  check(options?: CallOptions): Promise<Target[]> {
    return this.inner.check(options);
  }

  watchInstances(watcher: InstanceWatcher): InstanceWatch {
    if (!this.inner.watchInstances) throw new Error(`provider ${this.name} cannot watch its instances`);
    return this.inner.watchInstances(watcher);
  }

  /** The host capacity of the provider (it measures the shared libvirtd, so counts are not scoped). */
  get capacity(): HostCapacityReader | undefined {
    return this.inner.capacity;
  }

  /** The provider's read-only instance inspection (the diagnosis); it deletes nothing, so it needs no scope. */
  get inspector(): InstanceInspector | undefined {
    return this.inner.inspector;
  }

  /** The provider's serial consoles (boot capture; the diagnosis reads what it captured). */
  get console(): InstanceConsole | undefined {
    return this.inner.console;
  }

  /** The host stats of the provider (the sampler keeps only the Proxies' own VMs, so no scope is needed). */
  get stats(): HostStatsReader | undefined {
    return this.inner.stats;
  }
}

/** An entry of the run's providers config: its suffix and what changes on the lab's `kvm2:` block. */
export interface EntrySpec {
  suffix: string;
  kvm2?: Record<string, unknown>;
  /** replaces every host's pool */
  pool?: string;
  /** replaces the pool of the hosts named */
  poolByHost?: Record<string, string>;
}

export interface StartOptions {
  entries: EntrySpec[];
  /** environment settings on top of the run's defaults (durations as the server reads them) */
  env?: Record<string, string>;
}

const runDefaults: Record<string, string> = {
  PROVISIONING_POLL_INTERVAL: '1s',
  RECONCILE_BACKOFF_BASE: '250ms',
  RECONCILE_BACKOFF_CAP: '1s',
  RESYNC_INTERVAL: '5s',
  QUOTA_RETRY: '5m',
  PROVIDER_CHECK_INTERVAL: '1m',
  PROVIDER_CHECK_TIMEOUT: '15s',
  GC_INTERVAL: '10m',
  PROBE_INTERVAL: '1m',
  CONFIG_RELOAD_DELAY: '100ms',
};

/** One test file's runtime on the lab, and everything it must clean up. */
export class ControlLabRun {
  readonly id = randomBytes(3).toString('hex');
  readonly logs: LogLine[] = [];
  /** every probe the prober asked for (none expected: no lab VM ever gets an address) */
  readonly probes: ProbeRequest[] = [];
  readonly scoped = new Map<string, ScopedProvider>();
  private readonly dir = mkdtempSync(join(tmpdir(), 'control-lab-'));
  /** every domain of the run: its Proxies' and whatever its providers created (set members) */
  readonly domains = new Set<string>();
  private readonly entryNames = new Set<string>();
  private current: Runtime | undefined;

  constructor(readonly lab: Lab) {}

  get runtime(): Runtime {
    if (!this.current) throw new Error('the runtime has not been started');
    return this.current;
  }

  /** `c-<run>-<suffix>`: a file-safe entry name, part of every base image it caches. */
  entryName(suffix: string): string {
    const name = `c-${this.id}-${suffix}`;
    this.entryNames.add(name);
    return name;
  }

  /** A unique Proxy name; its instance (domain) name is remembered for scope and cleanup. */
  proxyName(what: string): string {
    const name = `ctl-${this.id}-${what}`;
    this.domains.add(instanceName(name));
    return name;
  }

  /** A unique ProxySet name; its members' domains join the run's scope when they are created. */
  setName(what: string): string {
    return `cs-${this.id}-${what}`;
  }

  private get configPath(): string {
    return join(this.dir, 'providers.yaml');
  }

  /** (Re)writes the run's providers config: the lab's `lab` entry under each spec's name. */
  writeConfig(entries: EntrySpec[]): void {
    writeFileSync(this.configPath, stringify(entries.map((spec) => this.entry(spec))));
  }

  /** Writes the config and starts the runtime. */
  async start(options: StartOptions): Promise<Runtime> {
    const { configPath } = this;
    this.writeConfig(options.entries);
    const settings = settingsFromEnv({
      ...runDefaults,
      DATA_DIR: join(this.dir, 'data'),
      PROVIDERS_CONFIG: configPath,
      // The stub probe below never sends it anywhere; the lab's own image server if it did.
      PROBE_URL: `${this.lab.imageServer.url}/healthz`,
      ...options.env,
    });
    const registry = new ProviderRegistry();
    // The server's own kvm2 factory (shared state across reloads included), narrowed to this run.
    registry.register('kvm2', async (entry, context) => {
      const handle = await kvm2Factory(entry as Kvm2Entry, context);
      const scoped = new ScopedProvider(handle.provider, { owns: (domain) => this.domains.has(domain), adopt: (domain) => this.domains.add(domain) });
      this.scoped.set(entry.name, scoped);
      return { provider: scoped, close: handle.close };
    });
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void this.logs.push(JSON.parse(line) as LogLine) } });
    this.current = createRuntime({
      settings,
      registry,
      logger,
      metrics: createMetrics(),
      probe: async (request): Promise<ProbeResult> => {
        this.probes.push(request);
        return { healthy: false, reason: 'ConnectionFailed', message: 'the lab test stub does not probe', latencyMs: 0 };
      },
    });
    await this.current.start();
    return this.current;
  }

  private entry(spec: EntrySpec): Kvm2Entry {
    const [lab] = parse(readFileSync(this.lab.providersConfig, 'utf8')) as Kvm2Entry[];
    if (!lab) throw new Error(`${this.lab.providersConfig} holds no entry`);
    const hosts = lab.kvm2.hosts.map((host) => {
      const pool = spec.poolByHost?.[host.name] ?? spec.pool;
      return pool ? { ...host, pool } : host;
    });
    return { ...lab, name: this.entryName(spec.suffix), kvm2: { ...lab.kvm2, hosts, ...spec.kvm2 } };
  }

  /** Volume names in the lab pool of HOST (lab1 by default; each host has its own pool). */
  volumes(host?: string): Promise<string[]> {
    return poolVolumes(this.lab.pool.name, host);
  }

  /** Volumes of the instance, as the provider names them: overlay and seed. */
  async instanceVolumes(domain: string, host?: string): Promise<string[]> {
    return (await this.volumes(host)).filter((name) => name === `${domain}.qcow2` || name === `${domain}-seed.iso`).sort();
  }

  /** Base images and markers cached for this run's entries. */
  async baseVolumes(host?: string): Promise<string[]> {
    const prefixes = [...this.entryNames].map((entry) => `base-${entry}-`);
    return (await this.volumes(host)).filter((name) => prefixes.some((prefix) => name.startsWith(prefix))).sort();
  }

  /** Stops the runtime, then removes every domain and volume the run caused, on both hosts, and its temp dir. */
  async cleanUp(): Promise<void> {
    await this.current?.stop().catch(() => undefined);
    const domains = [...this.domains];
    for (const { name: host } of this.lab.hosts) {
      for (const domain of domains) await removeDomain(domain, host).catch(() => undefined);
      const volumes = await this.volumes(host).catch(() => []);
      const ours = [...(await this.baseVolumes(host).catch(() => [])), ...volumes.filter((name) => domains.some((domain) => name.startsWith(domain)))];
      // Markers first, so an interrupted cleanup leaves bases that are refetched, never trusted.
      for (const name of ours.sort((a, b) => Number(b.endsWith('.sha256')) - Number(a.endsWith('.sha256')))) {
        await removeVolume(this.lab.pool.name, name, host).catch(() => undefined);
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface SingleProxySuite {
  run: ControlLabRun;
  runtime: Runtime;
  /** the one provider entry's name */
  entry: string;
  /** the Proxy name the file uses (its domain is in the run's scope and cleaned up) */
  proxy: string;
}

/** A test file's run with one entry and one Proxy name: started before its tests, cleaned up after. */
export function singleProxySuite(options: { suffix: string; env?: Record<string, string> }): SingleProxySuite {
  const suite = {} as SingleProxySuite;
  beforeAll(async () => {
    suite.run = new ControlLabRun(loadLab());
    suite.entry = suite.run.entryName(options.suffix);
    suite.proxy = suite.run.proxyName(options.suffix);
    suite.runtime = await suite.run.start({ entries: [{ suffix: options.suffix }], env: options.env });
  });
  afterAll(async () => {
    await suite.run?.cleanUp();
  });
  return suite;
}

/** root virsh's state of a domain on HOST (lab1 by default), or undefined when there is none. */
export async function domainState(domain: string, host?: string): Promise<string | undefined> {
  const result = await runCommand([...virshArgv(host), 'domstate', domain]);
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

/** A Managed Proxy on `provider` in the lab's terms (image `lab`, machine type `small`). */
export function labProxy(options: { name: string; provider: string; zone?: string; machineType?: string }) {
  return {
    name: options.name,
    mode: 'Managed' as const,
    provider: options.provider,
    placement: { zone: options.zone ?? 'lab1', machineType: options.machineType ?? 'small', image: 'lab' },
    cloudInit: '#cloud-config\nhostname: control-lab\n',
  };
}

/** Waits (90 s: a Create under TCG) until the Proxy `name` has recorded its instance; returns its providerID. */
export function recordedInstance(runtime: Runtime, name: string): Promise<string> {
  return vi.waitFor(
    async () => {
      const recorded = (await runtime.services.proxies.get(name)).status.providerID;
      expect(recorded, `${name} to record its instance`).toBeDefined();
      return recorded as string;
    },
    { timeout: 90_000, interval: 250 },
  );
}
