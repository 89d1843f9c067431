// The process printed `MaxListenersExceededWarning: 11 abort listeners added to [AbortSignal]`
// with 200 hosts (issue 26): the stats sampler handed its loop's long-lived signal to every host's
// read, and the health check its round's signal to every host's probe, so each of the 200 calls
// added a listener to one signal. Each host now gets a child signal; the shared one carries one.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortFanOut } from '@/lib/abort-fan-out';
import { Sampler } from '@/server/control/sampler';
import type { CallOptions } from '@/server/providers/contract';
import type { HostCounters, HostStatsReader } from '@/server/providers/host-stats';
import { checkHosts } from '@/server/providers/kvm2/check';
import type { FreshConnection, FreshOptions, HostBackend, LibvirtAPI } from '@/server/providers/kvm2/libvirt-api';
import { openStore } from '@/server/store';
import { providerSetOf, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';

const hostCount = 30;
const hostNames = Array.from({ length: hostCount }, (_, index) => `host-${index}`);
const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

/** Calls that listen on their signal, as the real ones do, and wait until released. */
class Gate {
  private readonly waiting: Array<() => void> = [];
  get size(): number {
    return this.waiting.length;
  }
  wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
  open(): void {
    for (const release of this.waiting.splice(0)) release();
  }
}

class GatedHosts implements HostStatsReader {
  constructor(private readonly gate: Gate) {}
  hosts(): string[] {
    return hostNames;
  }
  async sample(host: string, options: CallOptions = {}): Promise<HostCounters> {
    await this.gate.wait(options.signal);
    return { host, cpus: 1, cpuBusyNs: 0n, cpuTotalNs: 0n, memoryTotalBytes: 1, memoryFreeBytes: 1, domains: [] };
  }
}

describe('abort listeners on long-lived signals', () => {
  it('a stats round over 30 hosts adds at most one listener to the loop signal, and none stays', async () => {
    const dir = tempDir('fan-out-sampler-');
    const store = await openStore({ dataDir: dir.path, logger: silentLogger() });
    const gate = new Gate();
    const provider = Object.assign(new FakeProvider({ name: 'many-hosts' }), { stats: new GatedHosts(gate) });
    const clock = { now: () => Date.now(), setTimeout: () => undefined, clearTimeout: () => {} };
    const sampler = new Sampler({ store, clock, providers: await providerSetOf([provider]), logger: silentLogger(), intervalMs: 10_000 });
    const loop = new AbortController();
    try {
      for (let round = 0; round < 3; round += 1) {
        const running = sampler.runOnce(loop.signal);
        await expect.poll(() => gate.size).toBe(hostCount);
        expect(listeners(loop.signal)).toBeLessThanOrEqual(1);
        gate.open();
        expect(await running).toHaveLength(hostCount);
      }
      expect(listeners(loop.signal)).toBe(0);
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('a kvm2 health check over 30 hosts adds at most one listener to the round signal, and aborting it still ends every probe', async () => {
    const gate = new Gate();
    const backend: HostBackend = {
      pooled: () => Promise.reject(new Error('not used')),
      fresh: async (_host: string, options: FreshOptions = {}): Promise<FreshConnection> => {
        await gate.wait(options.signal);
        return { api: {} as LibvirtAPI, close: async () => {} };
      },
      closeAll: async () => {},
    };
    const settings = kvm2Settings({
      hosts: hostNames.map((name, index) => ({ name, address: `10.0.0.${index + 1}:22`, user: 'u', bridge: 'br0', virtType: 'qemu' })),
    });
    const round = new AbortController();
    const checking = checkHosts({ backend, settings, logger: silentLogger(), signal: round.signal });
    await expect.poll(() => gate.size).toBe(hostCount);
    expect(listeners(round.signal)).toBeLessThanOrEqual(1);
    round.abort(new Error('round over'));
    const targets = await checking;
    expect(targets.map((target) => target.reason)).toEqual(hostNames.map(() => 'Timeout'));
    expect(listeners(round.signal)).toBe(0);
  });
});

describe('AbortFanOut', () => {
  it('gives each caller a child signal while the parent carries one listener, and lets go once closed and every child is done', () => {
    const parent = new AbortController();
    const fan = new AbortFanOut(parent.signal);
    const children = Array.from({ length: 20 }, () => fan.child());
    expect(listeners(parent.signal)).toBe(1);
    children[0]!.done();
    fan.close();
    expect(listeners(parent.signal)).toBe(1); // 19 children still running
    parent.abort(new Error('stop'));
    expect(children.slice(1).every((child) => child.signal.aborted && (child.signal.reason as Error).message === 'stop')).toBe(true);
    expect(children[0]!.signal.aborted).toBe(false);
    expect(listeners(parent.signal)).toBe(0);
  });

  it('lets go of the parent when closed after every child is done, and hands out aborted children once the parent fired', () => {
    const parent = new AbortController();
    const fan = new AbortFanOut(parent.signal);
    fan.child().done();
    fan.close();
    expect(listeners(parent.signal)).toBe(0);
    const fired = new AbortFanOut(AbortSignal.abort(new Error('gone')));
    expect(fired.child().signal.aborted).toBe(true);
    expect(new AbortFanOut(undefined).child().signal.aborted).toBe(false);
  });
});
