// `npm run bench:libvirt`: our libvirt client against libvirt's own C client, on each lab host's
// libvirtd through that host's sshd (lab1: libvirt 9.0, lab2: libvirt 11.3). Prints ratios measured
// in this run; each host ends with the line
//   libvirt-bench host=<name> libvirtd=<version> rtt_ratio=<x> pipeline_speedup=<x> pipeline_vs_c=<x> c_best_threads=<n> upload_vs_virsh=<x> upload_vs_ssh=<x> (best of the rounds)
//     upload_vs_virsh_median=<x> upload_vs_ssh_median=<x> upload_peak_rss_mib=<n>
// pipeline_vs_c: our 100 concurrent calls' throughput over the C client's best threaded throughput
// (100 calls spread over 5, 10 or 20 threads sharing one connection); above 1 means we are faster.
// The C client is python3-libvirt / virsh over qemu+ssh (OpenSSH, host key checked against the
// lab's known_hosts through a PATH wrapper, since libvirt's ssh transport takes no such option).
// Uploads also print each round's ratios (ours against virsh and ssh in that round) and their median
// and range, since one machine's load moves them a lot between rounds (`--upload-rounds N`, default 3).
// `--calls-only` leaves out the uploads (a shorter lab hold).
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, openSync, closeSync, statSync, writeFileSync, chmodSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LibvirtClient, type StoragePool } from '@/server/libvirt';
import { libvirtSocketDialer } from '@/server/ssh';
import { type Lab, type LabHost, loadLab, sshArgs, virsh } from '@/test/lab/harness/lab';

const MiB = 1024 * 1024;
const RTT_CALLS = 300;
const RTT_ROUNDS = 15;
const PIPELINE_CALLS = 100;
const PIPELINE_ROUNDS = 30;
const UPLOAD_BYTES = 512 * MiB;
const UPLOAD_ROUNDS = Number(process.argv[process.argv.indexOf('--upload-rounds') + 1]) || 3;
const workDir = join(tmpdir(), 'kvm2-bench-libvirt');
const C_THREADS = [5, 10, 20];
const PYTHON = '/usr/bin/python3'; // Debian's, where python3-libvirt lives
const callsOnly = process.argv.includes('--calls-only');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fixed = (value: number, digits = 2) => value.toFixed(digits);

function openOurs(lab: Lab, host: LabHost): Promise<LibvirtClient> {
  const dialer = libvirtSocketDialer({
    address: host.address,
    user: lab.user,
    keyFile: lab.sshKeyFile,
    knownHostsFile: lab.knownHostsFile,
    socketPath: lab.socket,
  });
  return LibvirtClient.open({ dialer, timeoutMs: 20_000 });
}

/** qemu+ssh URI plus an environment whose `ssh` checks the host key against the lab's known_hosts. */
function cClientSetup(lab: Lab, host: LabHost): { uri: string; env: NodeJS.ProcessEnv } {
  const binDir = join(workDir, 'bin');
  mkdirSync(binDir, { recursive: true });
  const wrapper = join(binDir, 'ssh');
  writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/ssh -o UserKnownHostsFile=${lab.knownHostsFile} -o StrictHostKeyChecking=yes -o BatchMode=yes "$@"\n`);
  chmodSync(wrapper, 0o755);
  const query = new URLSearchParams({ keyfile: lab.sshKeyFile, no_tty: '1' });
  return {
    uri: `qemu+ssh://${lab.user}@${host.host}:${host.port}/system?${query.toString()}`,
    env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ''}` },
  };
}

// A long-lived python3-libvirt process that times N sequential getLibVersion calls per request,
// so its rounds can alternate with ours and both see the same machine load. Answers ms per call.
const pythonRttWorker = `
import sys, time, libvirt
conn = libvirt.open(sys.argv[1])
for _ in range(100): conn.getLibVersion()
print("ready", flush=True)
for line in sys.stdin:
    n = int(line)
    start = time.perf_counter()
    for _ in range(n): conn.getLibVersion()
    print((time.perf_counter() - start) * 1000 / n, flush=True)
conn.close()
`;

// The C client's concurrency: "THREADS CALLS" spreads CALLS getLibVersion calls over THREADS
// threads sharing one connection (libvirt's client multiplexes them); answers the round's ms.
const pythonThreadedWorker = `
import sys, time, threading, libvirt
conn = libvirt.open(sys.argv[1])
for _ in range(100): conn.getLibVersion()
print("ready", flush=True)
for line in sys.stdin:
    threads, calls = map(int, line.split())
    shares = [calls // threads + (1 if i < calls % threads else 0) for i in range(threads)]
    barrier = threading.Barrier(threads + 1)
    def work(n):
        barrier.wait()
        for _ in range(n): conn.getLibVersion()
    workers = [threading.Thread(target=work, args=(n,)) for n in shares]
    for worker in workers: worker.start()
    barrier.wait()
    start = time.perf_counter()
    for worker in workers: worker.join()
    print((time.perf_counter() - start) * 1000, flush=True)
conn.close()
`;

interface PythonWorker {
  /** sends one request line; resolves with the number it answers */
  ask(line: string): Promise<number>;
  stop(): void;
}

function startPythonWorker(script: string, c: { uri: string; env: NodeJS.ProcessEnv }): Promise<PythonWorker> {
  const child = spawn(PYTHON, ['-c', script, c.uri], { env: c.env, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = () => new Promise<string>((resolve) => waiting.push(resolve));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`python3-libvirt worker exited ${code}`))));
  exited.catch(() => undefined);
  return Promise.race([nextLine(), exited]).then(() => ({
    ask: async (line) => {
      child.stdin.write(`${line}\n`);
      return Number(await Promise.race([nextLine(), exited]));
    },
    stop: () => child.stdin.end(),
  }));
}

async function ourRoundMs(libvirt: LibvirtClient, calls: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < calls; i++) await libvirt.connectGetLibVersion();
  return (performance.now() - start) / calls;
}

/** Median per-call round trip, ours and the C client's, measured in alternating rounds. */
async function roundTrips(libvirt: LibvirtClient, worker: PythonWorker): Promise<{ oursMs: number; cMs: number }> {
  await ourRoundMs(libvirt, 100); // warm-up
  const ours: number[] = [];
  const c: number[] = [];
  for (let round = 0; round < RTT_ROUNDS; round++) {
    ours.push(await ourRoundMs(libvirt, RTT_CALLS));
    c.push(await worker.ask(String(RTT_CALLS)));
  }
  return { oursMs: median(ours), cMs: median(c) };
}

interface PipelineFigures {
  sequentialMs: number;
  pipelinedMs: number;
  /** the C client's median time for the 100 calls, per thread count */
  cThreadedMs: Map<number, number>;
}

/**
 * Median times of 100 calls: ours sequential, ours issued at once, and the C client's spread over
 * each thread count, in alternating rounds so all see the same machine load.
 */
async function pipeline(libvirt: LibvirtClient, cWorker: PythonWorker): Promise<PipelineFigures> {
  const sequential: number[] = [];
  const pipelined: number[] = [];
  const threaded = new Map<number, number[]>(C_THREADS.map((threads) => [threads, []]));
  for (let round = 0; round < PIPELINE_ROUNDS; round++) {
    let start = performance.now();
    for (let i = 0; i < PIPELINE_CALLS; i++) await libvirt.connectGetLibVersion();
    sequential.push(performance.now() - start);
    start = performance.now();
    await Promise.all(Array.from({ length: PIPELINE_CALLS }, () => libvirt.connectGetLibVersion()));
    pipelined.push(performance.now() - start);
    for (const threads of C_THREADS) threaded.get(threads)!.push(await cWorker.ask(`${threads} ${PIPELINE_CALLS}`));
  }
  return {
    sequentialMs: median(sequential),
    pipelinedMs: median(pipelined),
    cThreadedMs: new Map([...threaded].map(([threads, times]) => [threads, median(times)])),
  };
}

function uploadFile(): string {
  mkdirSync(workDir, { recursive: true });
  const path = join(workDir, 'upload-512MiB.bin');
  if (existsSync(path) && statSync(path).size === UPLOAD_BYTES) return path;
  const fd = openSync(path, 'w');
  for (let written = 0; written < UPLOAD_BYTES; written += 4 * MiB) writeSync(fd, randomBytes(4 * MiB));
  closeSync(fd);
  return path;
}

/** Runs a command with a file as its stdin; resolves with the wall time in ms. */
function timedWithStdin(argv: string[], options: { stdinFile?: string; env?: NodeJS.ProcessEnv }): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env: options.env ?? process.env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    if (options.stdinFile) createReadStream(options.stdinFile).pipe(child.stdin);
    else child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${argv[0]} exited ${code}: ${stderr}`))));
  });
}

/** Our whole upload as a user does it: dial, handshake, upload the file, close. Samples RSS. */
async function ourUploadMs(lab: Lab, host: LabHost, target: { file: string; volume: string }): Promise<{ ms: number; peakRssMiB: number }> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const start = performance.now();
  try {
    const libvirt = await openOurs(lab, host);
    const pool: StoragePool = await libvirt.storagePoolLookupByName({ name: lab.pool.name });
    const vol = await libvirt.storageVolLookupByName({ pool, name: target.volume });
    const source = createReadStream(target.file, { highWaterMark: MiB });
    await libvirt.storageVolUpload({ vol, source, length: UPLOAD_BYTES, timeoutMs: 20 * 60_000 });
    await libvirt.close();
    return { ms: performance.now() - start, peakRssMiB: peakRss / MiB };
  } finally {
    clearInterval(sampler);
  }
}

const mibPerSecond = (ms: number) => UPLOAD_BYTES / MiB / (ms / 1000);

/** Best-of-N upload times of ours, virsh vol-upload and raw ssh, in alternating rounds. */
async function uploads(lab: Lab, host: LabHost, cClient: { uri: string; env: NodeJS.ProcessEnv }) {
  const file = uploadFile();
  const volume = `rpcbench-${process.pid}`;
  const times = { ours: [] as number[], virsh: [] as number[], ssh: [] as number[] };
  let peakRssMiB = 0;
  await virsh(['vol-create-as', lab.pool.name, volume, String(UPLOAD_BYTES), '--format', 'raw'], host);
  try {
    for (let round = 0; round < UPLOAD_ROUNDS; round++) {
      const run = await ourUploadMs(lab, host, { file, volume });
      times.ours.push(run.ms);
      peakRssMiB = Math.max(peakRssMiB, run.peakRssMiB);
      const virshArgv = ['virsh', '-q', '-c', cClient.uri, 'vol-upload', '--pool', lab.pool.name, volume, file];
      times.virsh.push(await timedWithStdin(virshArgv, { env: cClient.env }));
      times.ssh.push(await timedWithStdin(['ssh', ...sshArgs(lab, host), 'cat > /dev/null'], { stdinFile: file }));
    }
  } finally {
    await virsh(['vol-delete', '--pool', lab.pool.name, volume], host).catch(() => undefined);
  }
  const perRound = (reference: number[]) => times.ours.map((ours, round) => reference[round]! / ours);
  return {
    oursMs: Math.min(...times.ours),
    virshMs: Math.min(...times.virsh),
    sshMs: Math.min(...times.ssh),
    vsVirsh: perRound(times.virsh),
    vsSsh: perRound(times.ssh),
    peakRssMiB,
  };
}

/** `median (min-max; each round's ratio)` of per-round ratios. */
function spread(ratios: number[]): string {
  return `${fixed(median(ratios))} (${fixed(Math.min(...ratios))}-${fixed(Math.max(...ratios))}; ${ratios.map((ratio) => fixed(ratio)).join(' ')})`;
}

async function benchHost(lab: Lab, host: LabHost): Promise<void> {
  console.log(`== ${host.name} (libvirtd ${host.libvirtVersion})`);
  const cClient = cClientSetup(lab, host);

  // Uploads first, so the peak RSS is the upload's and not leftovers of the call loops.
  const baselineRssMiB = process.memoryUsage().rss / MiB;
  const upload = callsOnly ? undefined : await uploads(lab, host, cClient);
  if (upload) {
    console.log(
      `upload 512 MiB (best of ${UPLOAD_ROUNDS}, dial included): ours ${fixed(mibPerSecond(upload.oursMs), 1)} MiB/s, ` +
        `virsh vol-upload ${fixed(mibPerSecond(upload.virshMs), 1)} MiB/s, ssh cat > /dev/null ${fixed(mibPerSecond(upload.sshMs), 1)} MiB/s`,
    );
    console.log(`  per round, ours against virsh: ${spread(upload.vsVirsh)}; against ssh: ${spread(upload.vsSsh)}`);
    console.log(`peak RSS during our uploads: ${fixed(upload.peakRssMiB, 0)} MiB (before them: ${fixed(baselineRssMiB, 0)} MiB)`);
  }

  const libvirt = await openOurs(lab, host);
  const worker = await startPythonWorker(pythonRttWorker, cClient);
  const rtt = await roundTrips(libvirt, worker).finally(() => worker.stop());
  console.log(
    `rtt (median of ${RTT_ROUNDS} alternating rounds): ours ${fixed(rtt.oursMs, 3)} ms, ` + `libvirt C (python3-libvirt, qemu+ssh) ${fixed(rtt.cMs, 3)} ms`,
  );
  const threadedWorker = await startPythonWorker(pythonThreadedWorker, cClient);
  const calls = await pipeline(libvirt, threadedWorker).finally(() => threadedWorker.stop());
  await libvirt.close();
  console.log(
    `${PIPELINE_CALLS} calls (median of ${PIPELINE_ROUNDS} alternating rounds): ours sequential ${fixed(calls.sequentialMs)} ms, ours pipelined ${fixed(calls.pipelinedMs)} ms`,
  );
  const [bestThreads, bestMs] = [...calls.cThreadedMs].reduce((best, entry) => (entry[1] < best[1] ? entry : best));
  console.log(
    `${PIPELINE_CALLS} calls, libvirt C on one connection: ` +
      [...calls.cThreadedMs].map(([threads, ms]) => `${threads} threads ${fixed(ms)} ms (${fixed((PIPELINE_CALLS * 1000) / ms, 0)} calls/s)`).join(', ') +
      `; ours pipelined ${fixed((PIPELINE_CALLS * 1000) / calls.pipelinedMs, 0)} calls/s`,
  );

  const uploadFigures = upload
    ? ` upload_vs_virsh=${fixed(upload.virshMs / upload.oursMs)} upload_vs_ssh=${fixed(upload.sshMs / upload.oursMs)}` +
      ` upload_vs_virsh_median=${fixed(median(upload.vsVirsh))} upload_vs_ssh_median=${fixed(median(upload.vsSsh))} upload_peak_rss_mib=${Math.round(upload.peakRssMiB)}`
    : '';
  console.log(
    `libvirt-bench host=${host.name} libvirtd=${host.libvirtVersion} rtt_ratio=${fixed(rtt.oursMs / rtt.cMs)} pipeline_speedup=${fixed(calls.sequentialMs / calls.pipelinedMs)} ` +
      `pipeline_vs_c=${fixed(bestMs / calls.pipelinedMs)} c_best_threads=${bestThreads}${uploadFigures}`,
  );
}

async function main(): Promise<void> {
  const lab = loadLab();
  for (const host of lab.hosts) await benchHost(lab, host);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
