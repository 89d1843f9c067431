// Debian's Squid as a stand-in for a Proxy VM: one Squid per network namespace of its own, reached
// from the root namespace through a veth pair (like the lab hosts, scripts/network.sh), its default
// route back through the root end, so what it fetches from the lab's image server on the VM link
// (198.18.0.1) arrives from the namespace's own address. Names and addresses are fixed so
// scripts/network.sh's remove_network can take them away should a test die half way.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { nsExec, runCommand } from './lab';

export interface LabSquid {
  name: string;
  netns: string;
  /** the namespace's address: where Squid listens and where its requests come from */
  address: string;
  port: number;
  url: string;
  process: ChildProcess;
}

/** kvm2lab-squid1..3, 198.18.6N.2 behind 198.18.6N.1/30 (198.18.0.0/15: reserved for network tests). */
export const squidNames = ['kvm2lab-squid1', 'kvm2lab-squid2', 'kvm2lab-squid3'];

function squidConf(options: { address: string; dir: string; name: string }): string {
  const { address, dir, name } = options;
  return [
    `http_port ${address}:3128`,
    `visible_hostname ${name}`,
    // An open proxy inside its namespace, as the fleet's Squids are to the dashboard.
    'http_access allow all',
    'cache deny all',
    'cache_mem 4 MB',
    `pid_filename ${dir}/squid.pid`,
    `access_log stdio:${dir}/access.log`,
    `cache_log ${dir}/cache.log`,
    'cache_store_log none',
    'netdb_filename none',
    `coredump_dir ${dir}`,
    'pinger_enable off',
    // Targets are addresses: no resolver is needed, and none is reachable from the namespace.
    'dns_nameservers 127.0.0.1',
    'shutdown_lifetime 0 seconds',
    '',
  ].join('\n');
}

async function removeNamespace(netns: string): Promise<void> {
  const pids = (await runCommand(['ip', 'netns', 'pids', netns])).stdout.split(/\s+/).filter(Boolean);
  for (const pid of pids) process.kill(Number(pid), 'SIGKILL');
  await runCommand(['ip', 'netns', 'delete', netns]);
}

function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitListening(squid: { name: string; address: string; port: number; dir: string; stderr: () => string }, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await listening(squid.address, squid.port))) {
    if (Date.now() > deadline) {
      const log = existsSync(join(squid.dir, 'cache.log')) ? readFileSync(join(squid.dir, 'cache.log'), 'utf8').slice(-2_000) : '(no cache.log)';
      throw new Error(
        `${squid.name} does not listen on ${squid.address}:${squid.port} after ${timeoutMs} ms; its stderr: ${squid.stderr()}\nits cache.log ends:\n${log}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts Squid number `index` (0..2) in its namespace; resolves once it accepts connections. */
export async function startSquid(index: number, dir: string): Promise<LabSquid> {
  const netns = squidNames[index];
  if (netns === undefined) throw new Error(`no Squid slot ${index}`);
  const subnet = `198.18.${61 + index}`;
  const address = `${subnet}.2`;
  const rootEnd = `kvm2lab-sq${index + 1}`;
  await removeNamespace(netns);
  await runCommand(['ip', 'netns', 'add', netns]);
  await nsExec(netns, ['ip', 'link', 'set', 'lo', 'up']);
  await runCommand(['ip', 'link', 'add', rootEnd, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
  await runCommand(['ip', 'addr', 'add', `${subnet}.1/30`, 'dev', rootEnd]);
  await runCommand(['ip', 'link', 'set', rootEnd, 'up']);
  await nsExec(netns, ['ip', 'addr', 'add', `${address}/30`, 'dev', 'eth0']);
  await nsExec(netns, ['ip', 'link', 'set', 'eth0', 'up']);
  await nsExec(netns, ['ip', 'route', 'add', 'default', 'via', `${subnet}.1`]);
  // Squid's user must reach its directory through this one (mkdtemp makes it 0700).
  chmodSync(dir, 0o755);
  const own = mkdtempSync(join(dir, `${netns}-`));
  // Squid started as root runs as Debian's `proxy` user, which must write its logs here.
  const proxyUser = Number((await runCommand(['id', '-u', 'proxy'])).stdout.trim());
  if (userInfo().uid === 0) chownSync(own, proxyUser, proxyUser);
  chmodSync(own, 0o755);
  writeFileSync(join(own, 'squid.conf'), squidConf({ address, dir: own, name: netns }));
  // `ip netns exec` execs Squid itself: the child's pid is Squid's (-N: no daemon, no kids).
  const child = spawn('ip', ['netns', 'exec', netns, 'squid', '-N', '-f', join(own, 'squid.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2_000)));
  const squid = { name: netns, netns, address, port: 3128, url: `http://${address}:3128`, process: child };
  await waitListening({ ...squid, dir: own, stderr: () => stderr }, 20_000);
  return squid;
}

export async function stopSquids(squids: LabSquid[], dir: string): Promise<void> {
  for (const netns of squidNames) await removeNamespace(netns);
  for (const squid of squids) squid.process.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
