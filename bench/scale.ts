// `npm run bench:scale` (through the lab lock): 200 hosts in one process (issue 26, item 6). The
// runtime runs in this process with one kvm2 provider of 200 host entries: 100 real ones on the
// lab's two sshds (50 each, distinct names, one address per sshd), 50 refusing (closed loopback
// ports) and 50 silent (loopback listeners that accept and never say a word, so each dial runs
// out its 10 s budget), interleaved in the config. It prints the time until every host has a
// reason, how many real entries are Reachable (first round and a second one), the health round's
// and the stats round's duration and CPU, the peak RSS, and every process warning (Node prints
// MaxListenersExceededWarning there). Goal: 100/100 Reachable, a round under 15 s, RSS under
// 300 MiB, no warnings. SSH_DIALS_MAX / SSH_DIALS_PER_ADDRESS from the environment apply (e.g.
// SSH_DIALS_PER_ADDRESS=1000 SSH_DIALS_MAX=1000 for the unlimited "before").
//   flock -o /work/lab.lock npm run bench:scale
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settingsFromEnv } from '@/server/control/settings';
import { createRuntime } from '@/server/runtime/create-runtime';
import type { Target } from '@/server/providers/contract';
import { createLogger } from '@/server/telemetry/logger';
import { labKvm2Basics, loadLab } from '@/test/lab/harness/lab';

const providerName = 'scale';
const perKind = { real: 100, refusing: 50, silent: 50 };
const goals = { roundMs: 15_000, rssMiB: 300 };
const mib = (bytes: number) => (bytes / 1024 ** 2).toFixed(0);

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

async function closedPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const server = createServer();
    ports.push(await listen(server));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return ports;
}

async function silentListeners(count: number): Promise<{ ports: number[]; close: () => void }> {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  const ports: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
      socket.resume();
    });
    servers.push(server);
    ports.push(await listen(server));
  }
  return {
    ports,
    close: () => {
      for (const socket of sockets) socket.destroy();
      for (const server of servers) server.close();
    },
  };
}

type Kind = keyof typeof perKind;

async function main(): Promise<void> {
  const lab = loadLab();
  const [lab1, lab2] = lab.hosts;
  if (!lab1 || !lab2) throw new Error('bench:scale needs the lab with two hosts (npm run lab:up)');
  // SCALE_REAL_HOSTS=lab1 puts every real entry on lab1 (lab2's OpenSSH 10 penalises a source
  // address whose connections never authenticate, e.g. after an unlimited run).
  const only = process.env.SCALE_REAL_HOSTS === 'lab1';
  const realHosts = [
    ['real-a', lab1],
    ['real-b', only ? lab1 : lab2],
  ] as const;
  const refusing = await closedPorts(perKind.refusing);
  const silent = await silentListeners(perKind.silent);
  const kinds = new Map<string, Kind>();
  const hosts: Array<Record<string, string>> = [];
  // Interleaved, as a real fleet's config would be: real, real, refusing, silent, ...
  for (let index = 0; index < perKind.real / 2; index += 1) {
    for (const [host, labHost] of realHosts) {
      const name = `${host}-${String(index).padStart(3, '0')}`;
      kinds.set(name, 'real');
      hosts.push({ name, address: labHost.address, user: lab.user, bridge: lab.bridge, pool: labHost.pool.name, virtType: 'qemu' });
    }
    const refusedName = `refusing-${String(index).padStart(3, '0')}`;
    kinds.set(refusedName, 'refusing');
    hosts.push({ name: refusedName, address: `127.0.0.1:${refusing[index]}`, user: lab.user, bridge: 'br0', pool: 'default', virtType: 'qemu' });
    const silentName = `silent-${String(index).padStart(3, '0')}`;
    kinds.set(silentName, 'silent');
    hosts.push({ name: silentName, address: `127.0.0.1:${silent.ports[index]}`, user: lab.user, bridge: 'br0', pool: 'default', virtType: 'qemu' });
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const configPath = join(dir, 'providers.yaml');
  const entry = {
    name: providerName,
    type: 'kvm2',
    kvm2: {
      ...labKvm2Basics(lab),
      hosts,
    },
  };
  // JSON is YAML.
  writeFileSync(configPath, JSON.stringify([entry], null, 2));

  const warnings: string[] = [];
  const stacks: string[] = [];
  process.on('warning', (warning) => {
    warnings.push(`${warning.name}: ${warning.message}`);
    if (process.env.SCALE_WARNING_STACKS) stacks.push(warning.stack ?? '');
  });
  let peakRss = 0;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

  const settings = settingsFromEnv({ ...process.env, PROVIDERS_CONFIG: configPath, DATA_DIR: join(dir, 'data'), GATEWAY_PORT: '0', DATABASE_URL: '' });
  console.log(
    `scale-bench: ${hosts.length} host entries (${perKind.real} real on ${lab1.address} and ${realHosts[1][1].address}, ${perKind.refusing} refusing, ${perKind.silent} silent); ` +
      `SSH_DIALS_MAX=${settings.sshDialsMax} SSH_DIALS_PER_ADDRESS=${settings.sshDialsPerAddress}`,
  );
  const runtime = createRuntime({ settings, logger: createLogger({ level: 'silent' }) });
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  await runtime.start();
  let first: Target[] = [];
  while (performance.now() - started < 120_000) {
    first = (await runtime.store.health.latest(providerName))[0]?.targets ?? [];
    if (first.length === hosts.length && first.every((target) => target.reason)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const everyReasonMs = performance.now() - started;
  const startCpuMs = cpuMs(process.cpuUsage(cpuAtStart));

  // A second health round and a stats round, each alone, once the start-up is over.
  const healthCpu = process.cpuUsage();
  const healthStarted = performance.now();
  await runtime.loops.monitor.runNow();
  const healthMs = performance.now() - healthStarted;
  const healthCpuMs = cpuMs(process.cpuUsage(healthCpu));
  const second = (await runtime.store.health.latest(providerName))[0]?.targets ?? [];
  const statsCpu = process.cpuUsage();
  const statsStarted = performance.now();
  const samples = await runtime.loops.sampler.runOnce();
  const statsMs = performance.now() - statsStarted;
  const statsCpuMs = cpuMs(process.cpuUsage(statsCpu));

  await runtime.stop();
  clearInterval(rssTimer);
  silent.close();
  rmSync(dir, { recursive: true, force: true });

  const reachable = (targets: Target[]) => targets.filter((target) => kinds.get(target.name) === 'real' && target.reason === 'Reachable').length;
  console.log(`first round: every host had a reason after ${everyReasonMs.toFixed(0)} ms (${first.length} targets); process CPU until then ${startCpuMs} ms`);
  console.log(`  real entries: ${summary(first, kinds, 'real')}`);
  console.log(`  refusing: ${summary(first, kinds, 'refusing')}; silent: ${summary(first, kinds, 'silent')}`);
  const dropped = first.filter((target) => kinds.get(target.name) === 'real' && target.reason !== 'Reachable').slice(0, 3);
  for (const target of dropped) console.log(`  e.g. ${target.name}: ${target.reason}: ${target.message}`);
  console.log(`second health round: ${healthMs.toFixed(0)} ms, CPU ${healthCpuMs} ms; real entries: ${summary(second, kinds, 'real')}`);
  console.log(`  refusing: ${summary(second, kinds, 'refusing')}; silent: ${summary(second, kinds, 'silent')}`);
  console.log(`stats round: ${statsMs.toFixed(0)} ms, CPU ${statsCpuMs} ms, ${samples.length} hosts sampled`);
  console.log(`peak RSS ${mib(peakRss)} MiB`);
  console.log(warnings.length === 0 ? 'warnings: none' : `warnings (${warnings.length}):\n  ${warnings.join('\n  ')}`);
  for (const stack of stacks) console.log(stack);
  const roundMs = Math.max(everyReasonMs, healthMs);
  console.log(
    `scale-bench every_reason_ms=${everyReasonMs.toFixed(0)} reachable_first=${reachable(first)} reachable_second=${reachable(second)} ` +
      `health_round_ms=${healthMs.toFixed(0)} health_round_cpu_ms=${healthCpuMs} stats_round_ms=${statsMs.toFixed(0)} stats_round_cpu_ms=${statsCpuMs} ` +
      `rss_mib=${mib(peakRss)} warnings=${warnings.length} ` +
      `goal=${reachable(first) === perKind.real && reachable(second) === perKind.real && roundMs < goals.roundMs && peakRss < goals.rssMiB * 1024 ** 2 && warnings.length === 0 ? 'met' : 'missed'}`,
  );
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return Math.round((usage.user + usage.system) / 1000);
}

function summary(targets: Target[], kinds: Map<string, Kind>, kind: Kind): string {
  const counts = new Map<string, number>();
  for (const target of targets) if (kinds.get(target.name) === kind) counts.set(target.reason, (counts.get(target.reason) ?? 0) + 1);
  const slowest = Math.max(0, ...targets.filter((target) => kinds.get(target.name) === kind).map((target) => target.latencyMs));
  return `${[...counts].map(([reason, count]) => `${reason} ${count}`).join(', ')} (slowest check ${slowest.toFixed(0)} ms)`;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
