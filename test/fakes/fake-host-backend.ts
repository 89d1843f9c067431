// A HostBackend over FakeHypervisors for the kvm2 provider's unit tests: one pooled FakeConnection
// per host (replaced once killed), a new labelled connection per `fresh` dial, hosts that can be
// made unreachable, and counts of dials and closes.
import { ErrTransient } from '@/server/providers/errors';
import type { FreshConnection, HostBackend, LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { FakeConnection, libvirtAPIOf, type FakeHypervisor } from './fake-libvirt';

export class FakeHostBackend implements HostBackend {
  readonly unreachable = new Set<string>();
  readonly freshDials: string[] = [];
  readonly freshCloses: string[] = [];
  pooledDials = 0;
  private readonly pooledByHost = new Map<string, FakeConnection>();
  private freshCount = 0;

  /** `hypervisors`: host name -> the libvirtd it reaches (two names may share one). */
  constructor(readonly hypervisors: Record<string, FakeHypervisor>) {}

  private hypervisorOf(host: string): FakeHypervisor {
    const hypervisor = this.hypervisors[host];
    if (!hypervisor || this.unreachable.has(host)) {
      throw new ErrTransient(`libvirt host ${host} is unreachable: connect ECONNREFUSED (fake)`);
    }
    return hypervisor;
  }

  async pooled(host: string): Promise<LibvirtAPI> {
    const hypervisor = this.hypervisorOf(host);
    const current = this.pooledByHost.get(host);
    if (current?.alive) return libvirtAPIOf(current);
    this.pooledDials += 1;
    const connection = new FakeConnection(hypervisor, 'pooled');
    this.pooledByHost.set(host, connection);
    return libvirtAPIOf(connection);
  }

  /** The pooled connection of `host` as it stands (undefined before the first call). */
  pooledConnection(host: string): FakeConnection | undefined {
    return this.pooledByHost.get(host);
  }

  async fresh(host: string): Promise<FreshConnection> {
    const hypervisor = this.hypervisorOf(host);
    this.freshCount += 1;
    const label = `fresh#${this.freshCount}`;
    this.freshDials.push(label);
    const connection = new FakeConnection(hypervisor, label);
    return {
      api: libvirtAPIOf(connection),
      close: async () => {
        connection.alive = false;
        this.freshCloses.push(label);
      },
    };
  }

  async closeAll(): Promise<void> {
    for (const connection of this.pooledByHost.values()) connection.kill('closed by closeAll');
    this.pooledByHost.clear();
  }
}
