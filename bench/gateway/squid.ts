// Debian's Squid on loopback with a private config, standing in for a Proxy VM of the fleet (the
// lab's harness, test/lab/harness/squid.ts, puts it in a network namespace; the bench needs no
// namespace and no lab: the origin is on loopback too). No cache, so every byte goes to the origin.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

export interface BenchSquid {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): void;
}

const squidBinary = '/usr/sbin/squid';

function squidConf(options: { port: number; dir: string }): string {
  return [
    `http_port 127.0.0.1:${options.port}`,
    'visible_hostname bench-squid',
    'http_access allow all',
    'cache deny all',
    'cache_mem 4 MB',
    `pid_filename ${options.dir}/squid.pid`,
    // A log line per request would be Squid's cost on both paths alike; none keeps it out.
    'access_log none',
    `cache_log ${options.dir}/cache.log`,
    'cache_store_log none',
    'netdb_filename none',
    `coredump_dir ${options.dir}`,
    'pinger_enable off',
    'dns_nameservers 127.0.0.1',
    'shutdown_lifetime 0 seconds',
    '',
  ].join('\n');
}

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Starts Squid on 127.0.0.1:`port`; resolves once it accepts connections. */
export async function startSquid(port: number): Promise<BenchSquid> {
  if (!existsSync(squidBinary)) throw new Error(`${squidBinary} is missing: install Debian's squid package (apt-get install squid)`);
  const dir = mkdtempSync(join(tmpdir(), 'kvm2-bench-squid-'));
  chmodSync(dir, 0o755);
  // Squid started as root runs as Debian's `proxy` user, which must write its logs here.
  if (userInfo().uid === 0) {
    const proxyUser = Number(execFileSync('id', ['-u', 'proxy'], { encoding: 'utf8' }).trim());
    chownSync(dir, proxyUser, proxyUser);
  }
  writeFileSync(join(dir, 'squid.conf'), squidConf({ port, dir }));
  // -N: no daemon, no kids; the child's pid is Squid's.
  const child = spawn(squidBinary, ['-N', '-f', join(dir, 'squid.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2_000)));
  const stop = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  while (!(await listening(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      const log = existsSync(join(dir, 'cache.log')) ? readFileSync(join(dir, 'cache.log'), 'utf8').slice(-2_000) : '(no cache.log)';
      stop();
      throw new Error(`Squid does not listen on 127.0.0.1:${port}; its stderr: ${stderr}\nits cache.log ends:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${port}`, port, process: child, stop };
}
