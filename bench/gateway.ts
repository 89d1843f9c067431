// `npm run bench:gateway` (issue 24's benchmark): the gateway (GatewayService, token auth on, run in
// a child process of its own so its CPU and memory are its own) with Debian's Squid on loopback as
// its only upstream, against the same Squid straight, in the same run:
//   1. throughput of one large download (plain HTTP and inside a CONNECT tunnel): ratio >= 0.9x
//   2. new CONNECT tunnels per gateway CPU-second (process.cpuUsage in the gateway's process): >= 1,000
//   3. 1,000 concurrent idle tunnels: the gateway process's RSS growth < 64 MiB, and meanwhile the
//      p50 of an API call answered by that process (GET /api/gateway: gateway.view() as JSON) < 50 ms
//   4. latency the gateway adds to a small GET: p50 < 1 ms on loopback (p95 shown)
// Rounds alternate gateway and straight so load from elsewhere on the machine falls on both.
// A missed goal prints MISSED; only a crash exits non-zero. Needs no lab (no namespace, no hypervisor).
//   npx tsx bench/gateway.ts [--mib 256] [--rounds 3] [--tunnels 2000] [--idle 1000] [--profile: CPU profiles of the gateway's process in the tunnels phase, in /tmp]
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { loadavg } from 'node:os';
import { freePort } from '@/test/support/free-port';
import type { ChildMessage } from './gateway/child';
import { startSquid } from './gateway/squid';
import { fetchThrough, openTunnel, smallBytes, startOrigin, type Via } from './gateway/traffic';

const arg = (name: string, fallback: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const mib = arg('--mib', 256);
const rounds = arg('--rounds', 3);
const tunnelCount = arg('--tunnels', 2_000);
const idleCount = arg('--idle', 1_000);
const smallCount = arg('--small', 400);

/** Straight to Squid; through a bare Node TCP relay, proxy-chain alone (references: Node's and the library's own cost); through the gateway. */
const pathNames = ['straight', 'relay', 'bare', 'gateway'] as const;
type PathName = (typeof pathNames)[number];
const labels: Record<PathName, string> = {
  straight: 'straight to Squid',
  relay: 'Node TCP relay (reference)',
  bare: 'proxy-chain alone (reference)',
  gateway: 'gateway',
};
const perPath = <T>(make: () => T): Record<PathName, T> => ({ straight: make(), relay: make(), bare: make(), gateway: make() });

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? NaN;
const median = (values: number[]) => percentile(values, 0.5);
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** The gateway's process; resolves once it listens. */
async function startGatewayProcess(squidPort: number): Promise<{ child: ChildProcess; ready: Extract<ChildMessage, { type: 'ready' }> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/gateway/child.ts'], {
    env: { ...process.env, BENCH_SQUID_PORT: String(squidPort), BENCH_GATEWAY_PORT: String(await freePort()) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Extract<ChildMessage, { type: 'ready' }>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the gateway's process exited with ${code} before it listened`)));
    child.on('message', (message: ChildMessage) => message.type === 'ready' && resolve(message));
  });
  child.removeAllListeners('exit');
  return { child, ready };
}

function usageOf(child: ChildProcess): Promise<Extract<ChildMessage, { type: 'usage' }>> {
  return new Promise((resolve) => {
    const listener = (message: ChildMessage) => {
      if (message.type !== 'usage') return;
      child.removeListener('message', listener);
      resolve(message);
    };
    child.on('message', listener);
    child.send({ type: 'usage' });
  });
}

const cpuSeconds = (before: { cpu: NodeJS.CpuUsage }, after: { cpu: NodeJS.CpuUsage }) =>
  (after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / 1e6;

/** CPU seconds a process has used (user + system), from /proc: Squid's, as a reference. */
function procCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs `count` jobs, `concurrency` at a time. */
async function pool(count: number, concurrency: number, job: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

async function apiLatencies(port: number, count: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/api/gateway', agent }, (response) => {
          response.resume();
          response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`GET /api/gateway answered ${response.statusCode}`))));
        })
        .on('error', reject);
    });
    times.push(performance.now() - started);
  }
  agent.destroy();
  return times;
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()} (2 cores shared with other work)`);
  const origin = await startOrigin();
  const squid = await startSquid(await freePort());
  const { child, ready } = await startGatewayProcess(squid.port);
  const gateway: Via = { host: '127.0.0.1', port: ready.gatewayPort, credentials: `bench:${ready.token}` };
  const paths: Record<PathName, Via> = {
    straight: { host: '127.0.0.1', port: squid.port },
    relay: { host: '127.0.0.1', port: ready.relayPort },
    bare: { host: '127.0.0.1', port: ready.bareProxyChainPort },
    gateway,
  };
  try {
    // 4. Added latency of a small GET (a new connection to the proxy each time, as a crawler
    // without keep-alive; then keep-alive to the proxy). Alternating, after a warm-up.
    const small = { origin: origin.http, path: '/small', expected: smallBytes, tunnel: false };
    for (let index = 0; index < 50; index += 1) for (const via of Object.values(paths)) await fetchThrough({ ...small, via });
    const fresh = perPath<number[]>(() => []);
    const kept = perPath<number[]>(() => []);
    const agents = perPath(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    for (let index = 0; index < smallCount; index += 1) {
      for (const path of pathNames) {
        fresh[path].push(await fetchThrough({ ...small, via: paths[path] }));
        kept[path].push(await fetchThrough({ ...small, via: paths[path], agent: agents[path] }));
      }
    }
    for (const agent of Object.values(agents)) agent.destroy();
    const added = (times: Record<PathName, number[]>, path: PathName, p: number) => percentile(times[path], p) - percentile(times.straight, p);
    console.log(`\n4. small GET (${smallCount} each, alternating; load ${load()}); added = minus straight to Squid`);
    for (const [label, times] of [
      ['new connection each', fresh],
      ['keep-alive to the proxy', kept],
    ] as const) {
      console.log(`   ${label}: straight to Squid p50 ${median(times.straight).toFixed(2)} ms p95 ${percentile(times.straight, 0.95).toFixed(2)} ms`);
      for (const path of ['relay', 'bare', 'gateway'] as const) {
        const goal = path === 'gateway' && label === 'new connection each' ? `  goal p50 < 1 ms: ${verdict(added(times, 'gateway', 0.5) < 1)}` : '';
        console.log(`     ${labels[path].padEnd(30)} added p50 ${added(times, path, 0.5).toFixed(2)} ms p95 ${added(times, path, 0.95).toFixed(2)} ms${goal}`);
      }
    }

    // 1. Throughput of one large download, alternating the paths.
    const bytes = mib * 1024 * 1024;
    console.log(`\n1. one ${mib} MiB download, ${rounds} rounds each, medians (load ${load()})`);
    for (const tunnel of [false, true]) {
      const rates = perPath<number[]>(() => []);
      const cpu = perPath<number[]>(() => []);
      const download = { origin: origin.http, path: `/bytes/${bytes}`, expected: bytes, tunnel };
      for (let round = 0; round < rounds; round += 1) {
        for (const path of pathNames) {
          const before = await usageOf(child);
          rates[path].push(mib / ((await fetchThrough({ ...download, via: paths[path] })) / 1000));
          const after = await usageOf(child);
          cpu[path].push(cpuSeconds(before, after));
        }
      }
      const ratio = (path: PathName) => median(rates[path]) / median(rates.straight);
      console.log(`   ${tunnel ? 'CONNECT tunnel' : 'plain HTTP'}: straight to Squid ${median(rates.straight).toFixed(0)} MiB/s`);
      for (const path of ['relay', 'bare', 'gateway'] as const) {
        const goal = path === 'gateway' ? `  goal >= 0.9x: ${verdict(ratio('gateway') >= 0.9)}` : '';
        const perGiB = (median(cpu[path]) / mib) * 1024;
        console.log(
          `     ${labels[path].padEnd(30)} ${median(rates[path]).toFixed(0)} MiB/s, ${ratio(path).toFixed(2)}x (its process: ${perGiB.toFixed(1)} CPU-s a GiB)${goal}`,
        );
      }
    }

    // 2. New tunnels per CPU-second of the gateway's process: CONNECT, answered 200, closed; 20 at
    // a time. proxy-chain alone first (same process), then the gateway.
    console.log(`\n2. ${tunnelCount} new CONNECT tunnels, 20 at a time (load ${load()})`);
    for (const path of ['relay', 'bare', 'gateway'] as const) {
      const before = await usageOf(child);
      const squidBefore = procCpuSeconds(squid.process.pid!);
      const profile = process.argv.includes('--profile') ? `/tmp/kvm2-bench-gateway-tunnels-${path}.cpuprofile` : undefined;
      if (profile) child.send({ type: 'profile-start' });
      const started = performance.now();
      await pool(tunnelCount, 20, async () => void (await openTunnel(paths[path], origin.hold)).destroy());
      const wallMs = performance.now() - started;
      const after = await usageOf(child);
      if (profile) child.send({ type: 'profile-stop', file: profile });
      const cpu = cpuSeconds(before, after);
      const squidCpu = procCpuSeconds(squid.process.pid!) - squidBefore;
      const goal = path === 'gateway' ? `  goal >= 1000: ${verdict(tunnelCount / cpu >= 1_000)}` : '';
      console.log(
        `   ${labels[path]}: ${(wallMs / 1000).toFixed(1)} s, CPU ${cpu.toFixed(2)} s (${((cpu / tunnelCount) * 1e6).toFixed(0)} µs a tunnel), ${(tunnelCount / cpu).toFixed(0)} tunnels per CPU-second${goal}; Squid meanwhile ${squidCpu.toFixed(2)} s (${(tunnelCount / squidCpu).toFixed(0)} per CPU-second)`,
      );
    }

    // 3. Idle tunnels: RSS growth and the API's latency meanwhile, against the same before.
    const apiBefore = await apiLatencies(ready.apiPort, 200);
    const rssBefore = (await usageOf(child)).rss;
    const idle: net.Socket[] = [];
    await pool(idleCount, 50, async () => void idle.push(await openTunnel(gateway, origin.hold)));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const apiDuring = await apiLatencies(ready.apiPort, 200);
    const during = await usageOf(child);
    const growth = (during.rss - rssBefore) / 1024 / 1024;
    console.log(`\n3. ${idle.length} idle tunnels open at once (load ${load()})`);
    console.log(
      `   gateway process RSS ${(rssBefore / 1024 / 1024).toFixed(0)} MiB -> ${(during.rss / 1024 / 1024).toFixed(0)} MiB: grew ${growth.toFixed(1)} MiB (${((growth * 1024) / idle.length).toFixed(1)} KiB a tunnel)  goal < 64 MiB: ${verdict(growth < 64)}`,
    );
    console.log(
      `   GET /api/gateway on the gateway's process (gateway.view() as JSON, what the dashboard's route answers): p50 ${median(apiDuring).toFixed(2)} ms p95 ${percentile(apiDuring, 0.95).toFixed(2)} ms; with no tunnel open p50 ${median(apiBefore).toFixed(2)} ms  goal p50 < 50 ms: ${verdict(median(apiDuring) < 50)}`,
    );
    for (const socket of idle) socket.destroy();
  } finally {
    child.disconnect();
    await new Promise((resolve) => child.once('exit', resolve));
    squid.stop();
    await origin.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
