// Test wiring for the proxy-set controller: the control plane over a fake provider given hosts
// (a capacity reader with per-host free memory) and their health, the set service, the controller
// with a hand-moved clock and a stubbed diagnosis, and helpers to make members Ready or hosts fail.
import type { ProxySetCreateInput } from '@/lib/api/proxyset-spec';
import { proxySetLabel } from '@/lib/api/proxyset-spec';
import type { Clock } from '@/server/control/clock';
import { systemClock } from '@/server/control/clock';
import { ProxySetController } from '@/server/control/proxy-set-controller';
import { ProxySetService } from '@/server/control/proxy-set-service';
import type { HostCapacityReader } from '@/server/providers/host-capacity';
import type { ProxyRecord } from '@/server/store/proxies';
import { createMetrics } from '@/server/telemetry/metrics';
import { controlPlane, type Harness, silentLogger } from './control-plane';
import { FakeProvider } from './fake-provider';

const gib = 1024 ** 3;

export interface SetHarness extends Harness {
  fake: FakeProvider;
  sets: ProxySetService;
  controller: ProxySetController;
  metricsText: () => Promise<string>;
  /** the clock's now, moved by `advance` */
  nowMs: () => number;
  advance: (ms: number) => void;
  /** the first failing step the stubbed diagnosis reports */
  diagnosis: { firstFailure: string | null; calls: number };
  /** per host: healthy (reachable) and free memory in GiB */
  hosts: Map<string, { reachable: boolean; freeGiB: number }>;
  /** records the hosts' health as the monitor would */
  checkHealth: () => Promise<void>;
  /** one controller pass, then the reconciler until idle */
  pass: () => Promise<void>;
  members: (set: string) => Promise<ProxyRecord[]>;
  /** the member's probe passed: it is Ready */
  markReady: (name: string) => Promise<void>;
}

export const setTemplate = { provider: 'fake-1', placement: { machineType: 'small', image: 'debian-13' }, cloudInit: '#cloud-config\n' };
export const setInput = (overrides: Partial<ProxySetCreateInput> = {}): ProxySetCreateInput => ({
  name: 'crawl',
  template: setTemplate,
  replicas: 3,
  ...overrides,
});

export async function setHarness(options: { hosts: Record<string, number> }): Promise<SetHarness> {
  let now = Date.parse('2026-12-01T10:00:00.000Z');
  const clock: Clock = { now: () => now, setTimeout: systemClock.setTimeout, clearTimeout: systemClock.clearTimeout };
  const fake = new FakeProvider({ name: 'fake-1' });
  const hosts = new Map(Object.entries(options.hosts).map(([name, freeGiB]) => [name, { reachable: true, freeGiB }]));
  const managedOn = (host: string) => [...fake.instances.values()].filter((instance) => instance.placement?.zone === host).length;
  const capacity: HostCapacityReader = {
    policy: 'spread',
    hosts: () => [...hosts.keys()],
    needs: () => ({ diskBytes: gib, memoryBytes: gib / 4 }),
    measure: async (host) => ({
      host,
      pool: 'default',
      poolRunning: true,
      poolAvailableBytes: 100 * gib,
      freeMemoryBytes: (hosts.get(host)?.freeGiB ?? 0) * gib,
      managedInstances: managedOn(host),
    }),
  };
  Object.assign(fake, { capacity });
  const harness = await controlPlane({ providers: [fake], clock });
  const metrics = createMetrics();
  const diagnosis = { firstFailure: 'cloud-init' as string | null, calls: 0 };
  const controller = new ProxySetController({
    store: harness.store,
    proxies: harness.proxies,
    providers: harness.providers,
    clock,
    logger: silentLogger(),
    intervalMs: 60_000,
    diagnose: async () => {
      diagnosis.calls += 1;
      return diagnosis.firstFailure;
    },
    diagnosisTtlMs: 0,
  });
  const sets = new ProxySetService({
    store: harness.store,
    clock,
    proxies: harness.proxies,
    providerNames: () => harness.providers.names(),
    onChange: () => undefined,
  });
  const checkHealth = async () => {
    const targets = [...hosts].map(([name, host]) => ({
      name,
      ready: host.reachable,
      reason: host.reachable ? 'Reachable' : 'Unreachable',
      message: '',
      details: {},
      latencyMs: 1,
      checkedAt: new Date(now).toISOString(),
    }));
    await harness.store.health.record({ provider: 'fake-1', targets, nowMs: now });
  };
  await checkHealth();
  const members = async (set: string) => (await harness.store.proxies.list()).filter((proxy) => proxy.spec.labels[proxySetLabel] === set);
  return {
    ...harness,
    fake,
    sets,
    controller,
    metricsText: async () => {
      await sets.recordMetrics(metrics.proxySetReplicas);
      return metrics.registry.metrics();
    },
    nowMs: () => now,
    advance: (ms) => {
      now += ms;
    },
    diagnosis,
    hosts,
    checkHealth,
    pass: async () => {
      await controller.pass();
      await harness.settle();
    },
    members,
    markReady: async (name) => {
      const record = await harness.store.proxies.get(name);
      if (!record?.status.ip) throw new Error(`${name} has no address yet`);
      const at = new Date(now).toISOString();
      await harness.store.proxies.writeProbe(record.uid, {
        target: `${record.status.ip}:${record.spec.port}`,
        healthy: true,
        condition: { type: 'Healthy', status: 'True', reason: 'ProxyAnswered', message: 'ok', lastTransitionTime: at },
        probedAt: at,
      });
    },
    close: async () => {
      await controller.stop();
      await harness.close();
    },
  };
}

/** Members per host, e.g. {a: 2, b: 1}. */
export function spreadOf(members: ProxyRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const member of members) {
    if (member.deletionRequestedAt || member.spec.mode !== 'Managed') continue;
    const zone = member.spec.placement.zone ?? '';
    counts[zone] = (counts[zone] ?? 0) + 1;
  }
  return counts;
}
