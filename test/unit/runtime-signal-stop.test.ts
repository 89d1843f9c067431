// Regression: under `next start` a SIGTERM exited the process before the runtime stopped. Next
// registers its own SIGTERM handler before instrumentation runs and calls process.exit as soon as
// its HTTP server has closed, so `control plane stopped` was never reached (found on the lab with
// test/lab/run.sh). The child here registers such a handler first, then starts the runtime.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleChildSource } from '@/test/fakes/bundle-child';
import { tempDir } from '@/test/fakes/control-plane';

const root = join(import.meta.dirname, '..', '..');
const scratch = tempDir('runtime-signal-');
afterAll(() => scratch.remove());

// A stand-in for Next's start-server: its handler exits at once with 128 + 15.
const childSource = `
import { startRuntimeOnce } from '@/server/runtime';
import { settingsFromEnv } from '@/server/control/settings';
import { ProviderRegistry } from '@/server/providers/registry';
import pino from 'pino';
import { createLogger } from '@/server/telemetry/logger';
import { createMetrics } from '@/server/telemetry/metrics';
process.on('SIGTERM', () => {
  process.stdout.write('host-exit\\n');
  process.exit(143);
});
await startRuntimeOnce({
  settings: settingsFromEnv({ DATA_DIR: process.env.DATA_DIR }),
  registry: new ProviderRegistry(),
  // Synchronous, so its lines and the process.stdout.write ones below reach the pipe in program
  // order (pino's default stdout buffers while a write is in flight, e.g. the setup code line).
  logger: createLogger({ level: 'info', destination: pino.destination({ dest: 1, sync: true }) }),
  metrics: createMetrics(),
});
process.stdout.write('ready\\n');
setInterval(() => undefined, 1_000);
`;

describe('SIGTERM with a host handler that exits (next start)', () => {
  it('stops the runtime before the host handler runs', async () => {
    const script = await bundleChildSource({ source: childSource, name: 'signal-child', outDir: scratch.path });
    const child = spawn(process.execPath, [script], {
      cwd: root,
      env: { ...process.env, DATA_DIR: join(scratch.path, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('ready\n')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await ready;
    child.kill('SIGTERM');
    const code = await exited;

    const messages = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (line.startsWith('{') ? (JSON.parse(line) as { msg: string }).msg : line));
    // Other lines (a loop's first pass) may interleave under load; the order of these is the point.
    const milestones = ['control plane started', 'ready', 'control plane stopped', 'host-exit'];
    expect(
      messages.filter((message) => milestones.includes(message)),
      `${stdout}\n${stderr}`,
    ).toEqual(milestones);
    expect(code).toBe(143);
  });
});
