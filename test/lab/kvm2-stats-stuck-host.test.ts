// The stats sampler over the kvm2 provider on both lab hosts while lab2's libvirtd is frozen
// (SIGSTOP: its RPCs get no answer, the SSH link stays up, as on a hung daemon): lab1 is still
// sampled every round, lab2 warns once, its pooled connection is not killed by the abandoned read
// (no redial after SIGCONT), and its next sample has a sane CPU %. The deadline comes from this
// machine's own healthy reads over warm connections: a first round that also dials SSH, or a busy
// 2-core runner, can take longer than a fixed 500 ms on a host that is not stuck at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '@/server/control/clock';
import { Sampler, type StatsSample } from '@/server/control/sampler';
import { openStore, type Store } from '@/server/store';
import { createLogger } from '@/server/telemetry/logger';
import { providerSetOf, silentLogger, tempDir } from '@/test/fakes/control-plane';
import { hostDaemonPid, loadLab, type Lab } from './harness/lab';
import { Kvm2LabRun, type LogLine } from './kvm2-provider-support';

let lab: Lab;
let run: Kvm2LabRun;
let dir: ReturnType<typeof tempDir>;
let store: Store;

beforeAll(async () => {
  lab = loadLab();
  run = new Kvm2LabRun(lab);
  dir = tempDir('lab-stats-stuck-');
  store = await openStore({ dataDir: dir.path, logger: silentLogger() });
});
afterAll(async () => {
  await run.cleanUp();
  await store.close();
  dir.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The slowest of a few reads of each host, after one that dials each pooled connection. */
async function slowestHealthyReadMs(provider: ReturnType<Kvm2LabRun['provider']>, hosts: string[]): Promise<number> {
  let slowest = 0;
  for (const host of hosts) {
    await provider.stats!.sample(host);
    for (let i = 0; i < 5; i++) {
      const startedAt = performance.now();
      await provider.stats!.sample(host);
      slowest = Math.max(slowest, performance.now() - startedAt);
    }
  }
  return slowest;
}

describe('stats sampling with a frozen libvirtd', () => {
  it('keeps sampling lab1 every round, warns once for lab2 and keeps its pooled connection', async () => {
    const provider = run.provider();
    const logs: LogLine[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) } });
    const [lab1, lab2] = lab.hosts.map((host) => host.name) as [string, string];
    const timeoutMs = Math.max(500, Math.ceil(5 * (await slowestHealthyReadMs(provider, [lab1, lab2]))));
    const intervalMs = 2 * timeoutMs;
    const sampler = new Sampler({ store, clock: systemClock, providers: await providerSetOf([provider]), logger, intervalMs, timeoutMs });
    const samples: StatsSample[] = [];
    sampler.onSample((sample) => samples.push(sample));
    const of = (host: string) => samples.filter((sample) => sample.target === host);
    const pooledDials = (host: string) =>
      run.logs.filter((line) => line.msg === 'libvirt host connected' && line.host === host && line.connection === 'pooled').length;
    const libvirtd = hostDaemonPid(lab.hosts[1]!, 'libvirtd');
    sampler.start();
    try {
      await expect
        .poll(() => Math.min(of(lab1).length, of(lab2).length), { message: 'two samples of each host', timeout: 20_000 + 2 * intervalMs, interval: 100 })
        .toBeGreaterThanOrEqual(2);
      expect(pooledDials(lab2)).toBe(1);

      const frozenAt = Date.now();
      const frozenMs = 5 * intervalMs;
      process.kill(libvirtd, 'SIGSTOP');
      try {
        await sleep(frozenMs);
      } finally {
        process.kill(libvirtd, 'SIGCONT');
      }
      const during = (host: string) => of(host).filter((sample) => sample.atMs > frozenAt + 100 && sample.atMs < frozenAt + frozenMs);
      // One round of an interval and a half (the deadline is half an interval), then rounds of one
      // interval: at least 3 in 5 intervals, whatever the load.
      expect(during(lab1).length).toBeGreaterThanOrEqual(3);
      expect(during(lab2)).toEqual([]);

      await expect
        .poll(() => of(lab2).filter((sample) => sample.atMs > frozenAt + frozenMs).length, {
          message: 'lab2 sampled again after SIGCONT',
          timeout: 15_000 + 3 * intervalMs,
          interval: 100,
        })
        .toBeGreaterThanOrEqual(2);
      const back = of(lab2).filter((sample) => sample.atMs > frozenAt + frozenMs);
      for (const sample of back) {
        if (sample.host.cpuPercent !== null) expect(sample.host.cpuPercent).toBeGreaterThanOrEqual(0);
        if (sample.host.cpuPercent !== null) expect(sample.host.cpuPercent).toBeLessThanOrEqual(100);
      }
      expect(back.at(-1)!.host.cpuPercent).not.toBeNull();
      const late = logs.filter((line) => String(line.msg).includes('did not answer within its deadline'));
      expect(late).toEqual([expect.objectContaining({ target: lab2, timeoutMs })]);
      expect(logs.filter((line) => line.msg === 'sampling a host works again')).toEqual([expect.objectContaining({ target: lab2 })]);
      // Abandoning the read did not abort its RPCs: the pooled connection lived through the freeze.
      expect(pooledDials(lab2)).toBe(1);
      console.info(
        `deadline ${timeoutMs} ms; lab1 samples while lab2 was frozen for ${frozenMs} ms: ${during(lab1).length}; lab2 samples after: ${back.length}`,
      );
    } finally {
      await sampler.stop();
    }
  });
});
