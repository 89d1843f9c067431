// `npm run bench:libvirt`: our libvirt client against libvirt's own C client, on the lab's
// libvirtd through the same sshd (lab1). Prints ratios measured in this run; the last line is
//   libvirt-bench rtt_ratio=<x> pipeline_speedup=<x> upload_vs_virsh=<x> upload_vs_ssh=<x> upload_peak_rss_mib=<n>
// The C client is python3-libvirt / virsh over qemu+ssh (OpenSSH, host key checked against the
// lab's known_hosts through a PATH wrapper, since libvirt's ssh transport takes no such option).
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, openSync, closeSync, statSync, writeFileSync, chmodSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibvirtClient, type StoragePool } from '@/server/libvirt';
import { libvirtSocketDialer } from '@/server/ssh';
import { type Lab, type LabHost, loadLab, runCommand, sshArgs, virsh } from '@/test/lab/harness/lab';

const MiB = 1024 * 1024;
const RTT_CALLS = 2_000;
const PIPELINE_CALLS = 100;
const PIPELINE_ROUNDS = 30;
const UPLOAD_BYTES = 512 * MiB;
const UPLOAD_ROUNDS = 2;
const workDir = join(tmpdir(), 'kvm2-bench-libvirt');
const PYTHON = '/usr/bin/python3'; // Debian's, where python3-libvirt lives

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
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec /usr/bin/ssh -o UserKnownHostsFile=${lab.knownHostsFile} -o StrictHostKeyChecking=yes -o BatchMode=yes "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const query = new URLSearchParams({ keyfile: lab.sshKeyFile, no_tty: '1' });
  return {
    uri: `qemu+ssh://${lab.user}@${host.host}:${host.port}/system?${query.toString()}`,
    env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ''}` },
  };
}

const pythonRtt = `
import json, sys, time, libvirt
conn = libvirt.open(sys.argv[1])
for _ in range(100): conn.getLibVersion()
start = time.perf_counter()
for _ in range(int(sys.argv[2])): conn.getLibVersion()
elapsed = time.perf_counter() - start
print(json.dumps({"rttMs": elapsed * 1000 / int(sys.argv[2])}))
conn.close()
`;

async function cClientRttMs(c: { uri: string; env: NodeJS.ProcessEnv }): Promise<number> {
  const result = await runCommand([PYTHON, '-c', pythonRtt, c.uri, String(RTT_CALLS)], { env: c.env, timeoutMs: 300_000 });
  if (result.exitCode !== 0) throw new Error(`python3-libvirt RTT run failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { rttMs: number }).rttMs;
}

async function ourRttMs(libvirt: LibvirtClient): Promise<number> {
  for (let i = 0; i < 100; i++) await libvirt.connectGetLibVersion();
  const start = performance.now();
  for (let i = 0; i < RTT_CALLS; i++) await libvirt.connectGetLibVersion();
  return (performance.now() - start) / RTT_CALLS;
}

/** Median time of 100 sequential calls over the median time of 100 calls issued at once. */
async function pipelineSpeedup(libvirt: LibvirtClient): Promise<{ sequentialMs: number; pipelinedMs: number }> {
  const sequential: number[] = [];
  const pipelined: number[] = [];
  for (let round = 0; round < PIPELINE_ROUNDS; round++) {
    let start = performance.now();
    for (let i = 0; i < PIPELINE_CALLS; i++) await libvirt.connectGetLibVersion();
    sequential.push(performance.now() - start);
    start = performance.now();
    await Promise.all(Array.from({ length: PIPELINE_CALLS }, () => libvirt.connectGetLibVersion()));
    pipelined.push(performance.now() - start);
  }
  return { sequentialMs: median(sequential), pipelinedMs: median(pipelined) };
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
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - start) : reject(new Error(`${argv[0]} exited ${code}: ${stderr}`)),
    );
  });
}

/** Our whole upload as a user does it: dial, handshake, upload the file, close. Samples RSS. */
async function ourUploadMs(lab: Lab, host: LabHost, target: { file: string; volume: string }): Promise<{ ms: number; peakRssMiB: number }> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const start = performance.now();
  try {
    const libvirt = await openOurs(lab, host);
    const pool: StoragePool = await libvirt.storagePoolLookupByName(lab.pool.name);
    const vol = await libvirt.storageVolLookupByName({ pool, name: target.volume });
    const source = createReadStream(target.file, { highWaterMark: MiB });
    await libvirt.storageVolUpload(vol, { source, length: UPLOAD_BYTES, timeoutMs: 20 * 60_000 });
    await libvirt.close();
    return { ms: performance.now() - start, peakRssMiB: peakRss / MiB };
  } finally {
    clearInterval(sampler);
  }
}

const mibPerSecond = (ms: number) => UPLOAD_BYTES / MiB / (ms / 1000);

async function main(): Promise<void> {
  const lab = loadLab();
  const host = lab.hosts[0]!;
  const cClient = cClientSetup(lab, host);
  const file = uploadFile();
  const volume = `rpcbench-${process.pid}`;

  const libvirt = await openOurs(lab, host);
  const oursRtt = await ourRttMs(libvirt);
  const cRtt = await cClientRttMs(cClient);
  console.log(`rtt: ours ${fixed(oursRtt, 3)} ms, libvirt C (python3-libvirt, qemu+ssh) ${fixed(cRtt, 3)} ms`);
  const pipeline = await pipelineSpeedup(libvirt);
  console.log(`100 calls: sequential ${fixed(pipeline.sequentialMs)} ms, pipelined ${fixed(pipeline.pipelinedMs)} ms`);
  await libvirt.close();

  await virsh(['vol-create-as', lab.pool.name, volume, String(UPLOAD_BYTES), '--format', 'raw']);
  const ours: number[] = [];
  const virshRuns: number[] = [];
  const sshRuns: number[] = [];
  let peakRssMiB = 0;
  try {
    for (let round = 0; round < UPLOAD_ROUNDS; round++) {
      const run = await ourUploadMs(lab, host, { file, volume });
      ours.push(run.ms);
      peakRssMiB = Math.max(peakRssMiB, run.peakRssMiB);
      virshRuns.push(
        await timedWithStdin(['virsh', '-q', '-c', cClient.uri, 'vol-upload', '--pool', lab.pool.name, volume, file], {
          env: cClient.env,
        }),
      );
      sshRuns.push(await timedWithStdin(['ssh', ...sshArgs(lab, host), 'cat > /dev/null'], { stdinFile: file }));
    }
  } finally {
    await virsh(['vol-delete', '--pool', lab.pool.name, volume]).catch(() => undefined);
  }
  const [oursMs, virshMs, sshMs] = [Math.min(...ours), Math.min(...virshRuns), Math.min(...sshRuns)];
  console.log(
    `upload 512 MiB (best of ${UPLOAD_ROUNDS}, dial included): ours ${fixed(mibPerSecond(oursMs), 1)} MiB/s, ` +
      `virsh vol-upload ${fixed(mibPerSecond(virshMs), 1)} MiB/s, ssh cat > /dev/null ${fixed(mibPerSecond(sshMs), 1)} MiB/s`,
  );
  console.log(`peak RSS of this process during our uploads: ${fixed(peakRssMiB, 0)} MiB`);
  console.log(
    `libvirt-bench rtt_ratio=${fixed(oursRtt / cRtt)} pipeline_speedup=${fixed(pipeline.sequentialMs / pipeline.pipelinedMs)} ` +
      `upload_vs_virsh=${fixed(virshMs / oursMs)} upload_vs_ssh=${fixed(sshMs / oursMs)} upload_peak_rss_mib=${Math.round(peakRssMiB)}`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
