// The stats sampler's first round waits `firstRoundDelayMs` (the runtime passes half the interval)
// so a start does not dial every host for stats at the same moment as the health check (issue 26):
// the first round is only the baseline of the rates anyway. Later rounds keep the interval.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '@/server/control/clock';
import { Sampler } from '@/server/control/sampler';
import type { HostCounters, HostStatsReader } from '@/server/providers/host-stats';
import { openStore } from '@/server/store';
import { providerSetOf, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

class CountedHosts implements HostStatsReader {
  readonly callsAtMs: number[] = [];
  hosts(): string[] {
    return ['h1'];
  }
  async sample(host: string): Promise<HostCounters> {
    this.callsAtMs.push(Date.now());
    return { host, cpus: 1, cpuBusyNs: 0n, cpuTotalNs: 0n, memoryTotalBytes: 1, memoryFreeBytes: 1, domains: [] };
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the stats sampler first round', () => {
  it.each([
    [undefined, [0, 10_000, 20_000]],
    [5_000, [5_000, 15_000]],
  ])('with firstRoundDelayMs %s samples at %j ms', async (firstRoundDelayMs, expected) => {
    vi.useFakeTimers({ now: 0 });
    const dir = tempDir('sampler-first-');
    const store = await openStore({ dataDir: dir.path, logger: silentLogger() });
    const hosts = new CountedHosts();
    const provider = Object.assign(new FakeProvider({ name: 'p' }), { stats: hosts });
    const sampler = new Sampler({
      store,
      clock: systemClock,
      providers: await providerSetOf([provider]),
      logger: silentLogger(),
      intervalMs: 10_000,
      firstRoundDelayMs,
    });
    try {
      sampler.start();
      await vi.advanceTimersByTimeAsync(20_000);
      expect(hosts.callsAtMs).toEqual(expected);
    } finally {
      await sampler.stop();
      vi.useRealTimers();
      await store.close();
      dir.remove();
    }
  });
});
