// Builds the app when the build is missing or older than its sources, then serves it with
// `next start` on a free loopback port against a providers config, with a fresh DATA_DIR and
// ADMIN_PASSWORD set. `stop()` ends the server (the process group it started) and removes the data.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@/test/support/free-port';

export const repoDir = fileURLToPath(new URL('../../../', import.meta.url));
const nextBin = join(repoDir, 'node_modules/next/dist/bin/next');
const buildIdFile = join(repoDir, '.next/BUILD_ID');
const sourceDirs = ['app', 'components', 'lib', 'server', 'public'];
const sourceFiles = ['next.config.mjs', 'postcss.config.mjs', 'instrumentation.ts', 'instrumentation-client.ts', 'proxy.ts', 'tsconfig.json', 'package.json'];

export class AppServerError extends Error {
  readonly code = 'E2E_APP_SERVER';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppServerError';
  }
}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestMtime(join(path, entry))), stat.mtimeMs);
}

export function buildIsStale(): boolean {
  if (!existsSync(buildIdFile)) return true;
  const built = statSync(buildIdFile).mtimeMs;
  return [...sourceDirs, ...sourceFiles].some((entry) => newestMtime(join(repoDir, entry)) > built);
}

function run(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: repoDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** `next build` once, when needed; a failed build fails loudly with its output. */
export async function ensureBuilt(): Promise<void> {
  if (!buildIsStale()) return;
  const { code, output } = await run([nextBin, 'build'], { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' });
  if (code !== 0) throw new AppServerError(`next build failed (exit ${code}):\n${output.slice(-4000)}`);
}

export interface AppServer {
  url: string;
  /** GATEWAY_PORT the server was given (a free one unless the caller's env set it) */
  gatewayPort: number;
  dataDir: string;
  /** the admin password from ADMIN_PASSWORD; empty when the server started without one */
  password: string;
  /** everything the server printed so far */
  logs(): string;
  stop(): Promise<void>;
}

export interface StartAppOptions {
  providersConfig?: string;
  /** ADMIN_PASSWORD; null starts the server without one (first start: the login page sets it) */
  password?: string | null;
  /** extra environment (check intervals for tests, ...) */
  env?: Record<string, string>;
  /** an existing data directory (seeded by the caller); a fresh one otherwise */
  dataDir?: string;
  readyTimeoutMs?: number;
}

async function waitForHealthy(url: string, child: ChildProcess, timeoutMs: number, logs: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new AppServerError(`the app exited with ${child.exitCode} before answering:\n${logs().slice(-4000)}`);
    try {
      const response = await fetch(`${url}/api/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new AppServerError(`the app did not answer /api/healthz within ${timeoutMs} ms:\n${logs().slice(-4000)}`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      // The whole group: `next start` runs the server in a child of its own.
      process.kill(-pid, 'SIGTERM');
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

export async function startApp(options: StartAppOptions = {}): Promise<AppServer> {
  await ensureBuilt();
  const port = await freePort();
  // The gateway's own port (default 8888) is free per server too, so two servers, or a dashboard
  // already on the machine, never collide; on loopback, whatever HOST the environment has.
  const gatewayPort = await freePort();
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'kvm2-e2e-data-'));
  const password = options.password === null ? '' : (options.password ?? `e2e-${Math.random().toString(36).slice(2)}-admin`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    PORT: String(port),
    DATA_DIR: dataDir,
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_PORT: String(gatewayPort),
    ...(options.providersConfig ? { PROVIDERS_CONFIG: options.providersConfig } : {}),
    ...options.env,
  };
  if (!options.providersConfig) delete env.PROVIDERS_CONFIG;
  if (password) env.ADMIN_PASSWORD = password;
  else delete env.ADMIN_PASSWORD;
  const child = spawn(process.execPath, [nextBin, 'start', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: repoDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealthy(url, child, options.readyTimeoutMs ?? 60_000, () => output);
  } catch (err) {
    await stopProcess(child);
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    gatewayPort: Number(env.GATEWAY_PORT),
    dataDir,
    password,
    logs: () => output,
    async stop() {
      await stopProcess(child);
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
