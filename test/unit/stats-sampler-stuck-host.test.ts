// A host whose libvirt link hangs (an RPC that never answers) must not stall the stats sampler:
// its read is abandoned at the deadline without aborting the call (that would kill the pooled
// connection others share), every other host is still sampled every round, the stuck host warns
// once, gets no second call while the first is out, its late answer is dropped, and its next read
// on time gives the true rate over the whole gap, not a spike.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { proxySpecSchema } from '@/lib/proxy-spec';
import { systemClock } from '@/server/control/clock';
import { instanceName } from '@/server/control/names';
import { Sampler, type StatsSample } from '@/server/control/sampler';
import type { CallOptions } from '@/server/providers/contract';
import type { HostCounters, HostStatsReader } from '@/server/providers/host-stats';
import { openStore, type Store } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { providerSetOf, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

const startMs = Date.UTC(2026, 11, 1, 12, 0, 0);
const vmOf = { healthy: 'alpha', stuck: 'beta' } as const;
type HostName = keyof typeof vmOf;

/**
 * Counters that grow steadily with the clock: the host (2 CPUs) 25 % busy, its one VM at 50 % of a
 * CPU, 1,000 bytes/s in and 500 out. Any rate other than these is a wrong one.
 */
function countersAt(host: HostName, atMs: number): HostCounters {
  const elapsedMs = BigInt(atMs - startMs) + 1_000_000n;
  const ns = elapsedMs * 1_000_000n;
  return {
    host,
    cpus: 2,
    cpuBusyNs: ns / 2n,
    cpuTotalNs: ns * 2n,
    memoryTotalBytes: 8 * 1024 ** 3,
    memoryFreeBytes: 4 * 1024 ** 3,
    domains: [
      { name: instanceName(vmOf[host]), runId: 7, state: 'running', running: true, cpuTimeNs: ns / 2n, netRxBytes: elapsedMs, netTxBytes: elapsedMs / 2n },
    ],
  };
}

interface Hanging {
  signal: AbortSignal | undefined;
  /** answers with the counters as they were when the call was made */
  answer: () => void;
  fail: (err: Error) => void;
}

/** Two hosts; a hung one never answers (whatever its signal does) until the test says so. */
class SteadyHosts implements HostStatsReader {
  readonly calls: HostName[] = [];
  readonly hanging: Hanging[] = [];
  private readonly hung = new Set<HostName>();

  hosts(): string[] {
    return Object.keys(vmOf);
  }

  hang(host: HostName, hung = true): void {
    if (hung) this.hung.add(host);
    else this.hung.delete(host);
  }

  sample(name: string, options: CallOptions = {}): Promise<HostCounters> {
    const host = name as HostName;
    this.calls.push(host);
    const counters = countersAt(host, Date.now());
    if (!this.hung.has(host)) return Promise.resolve(counters);
    return new Promise((resolve, reject) => this.hanging.push({ signal: options.signal, answer: () => resolve(counters), fail: reject }));
  }
}

class StatsProvider extends FakeProvider {
  readonly stats = new SteadyHosts();
}

let dir: ReturnType<typeof tempDir>;
let store: Store;
let sampler: Sampler | undefined;

beforeEach(async () => {
  vi.useFakeTimers({ now: startMs });
  dir = tempDir('stats-sampler-stuck-');
  store = await openStore({ dataDir: dir.path, logger: silentLogger() });
  for (const proxy of Object.values(vmOf)) {
    const spec = proxySpecSchema.parse({ mode: 'Managed', provider: 'fake-hosts', placement: { zone: 'z', machineType: 'small', image: 'debian-13' } });
    await store.proxies.insert({ uid: `uid-${proxy}`, name: proxy, spec, now: new Date(startMs).toISOString() });
  }
});
afterEach(async () => {
  await sampler?.stop();
  sampler = undefined;
  vi.useRealTimers();
  await store.close();
  dir.remove();
});

async function started() {
  const provider = new StatsProvider({ name: 'fake-hosts' });
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) } });
  sampler = new Sampler({ store, clock: systemClock, providers: await providerSetOf([provider]), logger, intervalMs: 10_000 });
  const samples: StatsSample[] = [];
  sampler.onSample((sample) => samples.push(sample));
  sampler.start();
  await vi.advanceTimersByTimeAsync(0);
  const secondsOf = (host: HostName) => samples.filter((sample) => sample.target === host).map((sample) => (sample.atMs - startMs) / 1000);
  return { hosts: provider.stats, logs, samples, secondsOf };
}

const stuckLines = (logs: Array<Record<string, unknown>>) => logs.filter((line) => String(line.msg).includes('did not answer within its deadline'));

describe('stats sampler with a host that hangs', () => {
  it('samples the other host every round, warns once, drops the late answer and gives the true rate after the gap', async () => {
    const { hosts, logs, samples, secondsOf } = await started();
    hosts.hang('stuck');
    await vi.advanceTimersByTimeAsync(10_000); // round 2 at 10 s: the stuck host's deadline is at 15 s
    await vi.advanceTimersByTimeAsync(5_000);
    expect(hosts.hanging).toHaveLength(1);
    // Only stop waiting: aborting the call would kill the host's pooled connection.
    expect(hosts.hanging[0]!.signal?.aborted).not.toBe(true);
    await vi.advanceTimersByTimeAsync(20_000); // rounds 3 and 4 at 25 s and 35 s
    hosts.hanging[0]!.answer(); // the counters read at 10 s arrive at 35 s
    hosts.hang('stuck', false);
    await vi.advanceTimersByTimeAsync(10_000); // round 5 at 45 s

    expect(secondsOf('healthy')).toEqual([0, 10, 25, 35, 45]);
    expect(secondsOf('stuck')).toEqual([0, 45]);
    expect(hosts.calls.filter((host) => host === 'stuck')).toHaveLength(3);
    expect(stuckLines(logs)).toEqual([expect.objectContaining({ level: 40, provider: 'fake-hosts', target: 'stuck', timeoutMs: 5_000 })]);
    expect(logs.filter((line) => line.msg === 'sampling a host works again')).toEqual([expect.objectContaining({ provider: 'fake-hosts', target: 'stuck' })]);

    const back = samples.at(-1)!;
    expect(back).toMatchObject({ target: 'stuck', host: { cpuPercent: 25 } });
    expect(back.vms).toEqual([expect.objectContaining({ proxy: 'beta', cpuPercent: 50, netRxBps: 1_000, netTxBps: 500 })]);
    const beta = await store.stats.proxyHistory({ proxyUid: 'uid-beta', sinceMs: 0, stepMs: 10_000 });
    expect(beta.map((point) => point.cpuPercent)).toEqual([null, 50]);
    // The gap's traffic is all there: 45 s at 1,000 bytes/s in.
    expect(await store.stats.trafficByProxy(0)).toContainEqual({ proxyUid: 'uid-beta', rxBytes: 45_000, txBytes: 22_500 });
  });

  it('starts a new baseline when the abandoned call fails later (the link died under it)', async () => {
    const { hosts, samples } = await started();
    hosts.hang('stuck');
    await vi.advanceTimersByTimeAsync(15_000); // round 2 abandoned at 15 s
    hosts.hanging[0]!.fail(new Error('connection killed'));
    hosts.hang('stuck', false);
    await vi.advanceTimersByTimeAsync(20_000); // rounds 3 and 4 at 25 s and 35 s
    const stuck = samples.filter((sample) => sample.target === 'stuck');
    expect(stuck.map((sample) => [(sample.atMs - startMs) / 1000, sample.vms[0]!.cpuPercent])).toEqual([
      [0, null],
      [25, null],
      [35, 50],
    ]);
  });

  it('warns again when a host that answered since gets stuck again', async () => {
    const { hosts, logs, secondsOf } = await started();
    hosts.hang('stuck');
    await vi.advanceTimersByTimeAsync(15_000);
    hosts.hanging[0]!.answer();
    hosts.hang('stuck', false);
    await vi.advanceTimersByTimeAsync(10_000); // answers at 25 s
    hosts.hang('stuck');
    await vi.advanceTimersByTimeAsync(15_000); // abandoned again at 40 s
    expect(secondsOf('stuck')).toEqual([0, 25]);
    expect(stuckLines(logs).map((line) => line.time)).toEqual([startMs + 15_000, startMs + 40_000]);
  });
});
