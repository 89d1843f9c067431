// The bench's fleet: a kvm2 provider over ten in-memory hypervisors (the image already cached on
// each, so nothing is downloaded), a runtime over a fresh store with that provider, 1,000 Proxies
// created through the Proxy service (the reconciler turns them into domains, 100 per host), and a
// day of health history per host for the charts. One more host, `host-big`, holds 1,000 domains
// that are not ours (foreign: the reconciler and GC leave them alone), for the host page at 1,000
// rows. Once every Proxy is Ready, an hour of per-VM stats (one row a minute) is written for every
// domain, so each domains-table row draws its two sparklines from 60 points, as on a real host.
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kvm2Entry } from '@/server/providers/config';
import { resolveImage } from '@/server/providers/kvm2/image-resolve';
import { withDefaults } from '@/server/providers/kvm2/kvm2';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { ProviderRegistry } from '@/server/providers/registry';
import { settingsFromEnv } from '@/server/control/settings';
import { DomainInterfaceAddressesSource, DomainState } from '@/server/libvirt';
import { type Runtime, startRuntimeOnce } from '@/server/runtime';
import { createLogger } from '@/server/telemetry/logger';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';

export const providerName = 'bench';
export const hostCount = 10;
export const proxyCount = 1_000;
export const hostNames = Array.from({ length: hostCount }, (_, index) => `host-${String(index + 1).padStart(2, '0')}`);
export const bigHostName = 'host-big';
export const bigHostDomains = 1_000;

const image = randomBytes(64 * 1024);
const imageDigest = createHash('sha256').update(image).digest('hex');

function benchEntry(): Kvm2Entry {
  return {
    name: providerName,
    type: 'kvm2',
    kvm2: {
      sshKeyFile: '/dev/null',
      insecureIgnoreHostKey: true,
      // Never fetched: every hypervisor has the image cached already.
      images: { debian: { url: 'http://127.0.0.1:9/debian.qcow2', sha256: imageDigest } },
      machineTypes: { small: { vcpus: 1, memoryMiB: 1024 } },
      hosts: [...hostNames, bigHostName].map((name, index) => ({ name, address: `10.99.0.${index + 1}:22`, user: 'bench', bridge: 'br0', virtType: 'qemu' })),
    },
  } as Kvm2Entry;
}

export interface Fleet {
  runtime: Runtime;
  /** resolves when every Proxy is Ready: its domain defined, addressed (the guest agent answers) and probed */
  settled(timeoutMs: number): Promise<void>;
}

/** The guest agent's answer for a booted domain: one IPv4 address on eth0. */
function giveAddresses(hypervisors: Record<string, FakeHypervisor>): void {
  Object.values(hypervisors).forEach((hypervisor, hostIndex) => {
    let index = 0;
    for (const domain of hypervisor.domains.values()) {
      index += 1;
      if (domain.addresses[DomainInterfaceAddressesSource.Agent]) continue;
      const addr = `10.${100 + hostIndex}.${Math.floor(index / 250)}.${(index % 250) + 2}`;
      domain.addresses[DomainInterfaceAddressesSource.Agent] = [{ name: 'eth0', hwaddr: '52:54:00:00:00:01', addrs: [{ type: 0, addr, prefix: 24 }] }];
    }
  });
}

export async function startFleet(options: { dataDir: string; adminPassword: string }): Promise<Fleet> {
  const entry = benchEntry();
  const settings = withDefaults(entry);
  const cached = resolveImage(settings, 'debian');
  const hypervisors = Object.fromEntries(
    [...hostNames, bigHostName].map((name, index) => {
      const hypervisor = new FakeHypervisor({ poolCapacity: (200 + index * 20) * 1024 ** 3 });
      hypervisor.hostname = `${name}.bench`;
      hypervisor.addVolume({ name: cached.baseVolume, format: 'qcow2', content: image });
      hypervisor.addVolume({ name: cached.markerVolume, content: imageDigest });
      return [name, hypervisor];
    }),
  ) as Record<string, FakeHypervisor>;
  for (let index = 0; index < bigHostDomains; index += 1) {
    hypervisors[bigHostName]!.addDomain({ name: `other-${String(index).padStart(4, '0')}`, state: DomainState.Running });
  }
  const backend = new FakeHostBackend(hypervisors);
  const logger = createLogger({ level: 'silent' });
  const registry = new ProviderRegistry();
  registry.register<Kvm2Entry>('kvm2', () => ({ provider: createKvm2Provider({ entry, logger, backend }) }));

  process.env.ADMIN_PASSWORD = options.adminPassword;
  // The runtime loads a config only from a file it can watch; the loader below ignores its text.
  const configPath = join(options.dataDir, 'providers.yaml');
  writeFileSync(configPath, '# the bench passes its entry through configLoader\n');
  const runtime = await startRuntimeOnce({
    settings: settingsFromEnv({
      DATA_DIR: options.dataDir,
      PROVIDERS_CONFIG: configPath,
      RECONCILE_WORKERS: '8',
      PROVISIONING_POLL_INTERVAL: '2s',
      PROVIDER_CHECK_INTERVAL: '30s',
      PROBE_INTERVAL: '1h',
    }),
    registry,
    configLoader: async () => [entry],
    logger,
    // No traffic leaves the machine: every probe answers at once, healthy.
    probe: async () => ({ healthy: true, reason: 'ProxyAnswered', message: '', latencyMs: 12 }),
  });

  seedHistory(runtime);
  for (let index = 0; index < proxyCount; index += 1) {
    runtime.services.proxies.create({
      name: `proxy-${String(index).padStart(4, '0')}`,
      mode: 'Managed',
      provider: providerName,
      placement: { zone: hostNames[index % hostCount], machineType: 'small', image: 'debian' },
      port: 3128,
      labels: { pool: 'crawl', shard: String(index % 4) },
      cloudInit: '#cloud-config\n',
    });
  }

  return {
    runtime,
    async settled(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const ready = async () => (await runtime.services.proxies.list({ phase: 'Ready' })).length;
      while ((await ready()) < proxyCount) {
        if (Date.now() > deadline) throw new Error(`only ${await ready()} of ${proxyCount} Proxies Ready after ${timeoutMs} ms`);
        giveAddresses(hypervisors);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await seedStats(runtime, hypervisors);
    },
  };
}

/** A check every 5 minutes for the last day, with a short outage on one host. */
function seedHistory(runtime: Runtime): void {
  const now = Date.now();
  for (let step = 288; step > 0; step -= 1) {
    const at = now - step * 5 * 60_000;
    const targets = hostNames.map((name, index) => {
      const down = index === 3 && step > 100 && step < 110;
      const free = 150 + index * 20 - (288 - step) * 0.05;
      return {
        name,
        ready: !down,
        reason: down ? 'Unreachable' : 'Reachable',
        message: down ? 'dial tcp: connect ECONNREFUSED' : '',
        details: { user: 'bench', pool: 'default', poolState: 'running', poolCapacityGiB: String(200 + index * 20), poolAvailableGiB: free.toFixed(2) },
        latencyMs: 20 + ((step * 7 + index * 13) % 40),
        checkedAt: new Date(at).toISOString(),
      };
    });
    runtime.store.health.record({ provider: providerName, targets, nowMs: at });
  }
}

/** An hour of per-VM stats, one row a minute, for every domain on every host (ours by their Proxy's uid). */
async function seedStats(runtime: Runtime, hypervisors: Record<string, FakeHypervisor>): Promise<void> {
  const records = await runtime.store.proxies.list();
  const now = Date.now();
  for (const [target, hypervisor] of Object.entries(hypervisors)) {
    const domains = [...hypervisor.domains.values()].map((domain) => {
      const text = `${domain.xml}${[...domain.metadata.values()].join('')}`;
      return { name: domain.name, proxyUid: records.find((record) => text.includes(record.uid))?.uid ?? `foreign-${domain.name}` };
    });
    for (let step = 60; step > 0; step -= 1) {
      const sampledAtMs = now - step * 60_000;
      const wave = (offset: number) => (Math.sin((step + offset) / 6) + 1) / 2;
      await runtime.store.stats.record({
        host: { provider: providerName, target, sampledAtMs, cpuPercent: 40 * wave(0), memoryUsedBytes: 8 * 1024 ** 3, memoryTotalBytes: 32 * 1024 ** 3 },
        vms: domains.map((domain, index) => ({
          proxyUid: domain.proxyUid,
          provider: providerName,
          target,
          domain: domain.name,
          sampledAtMs,
          spanMs: 60_000,
          cpuPercent: step === 60 ? null : 5 + 20 * wave(index),
          memoryBytes: 512 * 1024 ** 2,
          memoryTotalBytes: 1024 ** 3,
          netRxBps: 50_000 * wave(index + 3),
          netTxBps: 20_000 * wave(index + 5),
          diskReadBps: 0,
          diskWriteBps: 0,
        })),
      });
    }
  }
}
