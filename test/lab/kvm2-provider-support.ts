// Shared by the kvm2-provider-*.test.ts lab tests: a kvm2 provider entry over the lab's real
// hosts (its own entry name per test file, so its base images never collide with another
// helper's), domain names under the `kvm2test-` prefix, captured log lines, and cleanup of every
// domain and volume a file made, cached base images included.
import { randomBytes } from 'node:crypto';
import type { Kvm2Entry } from '@/server/providers/config';
import { createKvm2Provider, type Kvm2Provider } from '@/server/providers/kvm2/provider';
import { createLogger } from '@/server/telemetry/logger';
import { type Lab, labKvm2Basics, poolVolumes, removeDomain, removeVolume, virsh } from './harness/lab';

export const KVM2_TEST_PREFIX = 'kvm2test-';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A run of one test file: its entry name, its domain names, and what it must clean up. */
export class Kvm2LabRun {
  /** `t-<random>`: part of every base image this run caches */
  readonly entryName = `t-${randomBytes(3).toString('hex')}`;
  readonly logs: LogLine[] = [];
  private readonly providers: Kvm2Provider[] = [];
  private readonly domains = new Set<string>();
  private readonly runId = randomBytes(3).toString('hex');

  constructor(readonly lab: Lab) {}

  /** A unique domain name, remembered for cleanup. */
  domainName(what: string): string {
    const name = `${KVM2_TEST_PREFIX}${this.runId}-${what}`;
    this.domains.add(name);
    return name;
  }

  /** The lab's providers entry under this run's name, virtType qemu, with `overrides` on the block. */
  entry(overrides: Partial<Kvm2Entry['kvm2']> = {}): Kvm2Entry {
    const { lab } = this;
    return {
      name: this.entryName,
      type: 'kvm2',
      kvm2: {
        ...labKvm2Basics(lab),
        hosts: lab.hosts.map((host) => ({
          name: host.name,
          address: host.address,
          user: lab.user,
          bridge: lab.bridge,
          pool: lab.pool.name,
          virtType: 'qemu' as const,
        })),
        ...overrides,
      },
    };
  }

  /** A provider over real SSH to the lab, logging at trace (the spec's V(2)) into `logs`. */
  provider(overrides: Partial<Kvm2Entry['kvm2']> = {}): Kvm2Provider {
    const logger = createLogger({ level: 'trace', destination: { write: (line: string) => void this.logs.push(JSON.parse(line) as LogLine) } });
    const provider = createKvm2Provider({ entry: this.entry(overrides), logger });
    this.providers.push(provider);
    return provider;
  }

  /** Volume names in the lab pool of HOST (lab1 by default; each host has its own). */
  volumes(host?: string): Promise<string[]> {
    return poolVolumes(this.lab.pool.name, host);
  }

  /** This run's cached base images and markers. */
  async baseVolumes(host?: string): Promise<string[]> {
    return (await this.volumes(host)).filter((name) => name.startsWith(`base-${this.entryName}-`)).sort();
  }

  /** Every domain and volume this run made on either host, then the providers' connections. */
  async cleanUp(): Promise<void> {
    for (const provider of this.providers) await provider.close().catch(() => undefined);
    for (const { name: host } of this.lab.hosts) {
      for (const domain of this.domains) await removeDomain(domain, host).catch(() => undefined);
      const ours = (await this.volumes(host).catch(() => [])).filter(
        (name) => name.startsWith(`base-${this.entryName}-`) || [...this.domains].some((domain) => name.startsWith(domain)),
      );
      // Markers first, so an interrupted cleanup leaves bases that are refetched, never trusted.
      for (const name of ours.sort((a, b) => Number(b.endsWith('.sha256')) - Number(a.endsWith('.sha256')))) {
        await removeVolume(this.lab.pool.name, name, host).catch(() => undefined);
      }
    }
  }
}

/** The error `promise` rejects with, or undefined when it resolves. */
export function failureOf(promise: Promise<unknown>): Promise<Error | undefined> {
  return promise.then(
    () => undefined,
    (err: unknown) => err as Error,
  );
}
