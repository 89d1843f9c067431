// The lab stops a daemon one way, in its shell scripts (stop_pids, scripts/lib.sh) and in its tests
// (stopProcess, harness/stop-daemon.ts): SIGTERM, a bounded wait, then SIGKILL, and a log line
// saying which ended it. A daemon slow to exit on SIGTERM (lab2's libvirtd 11.3 took more than 20 s
// on a busy 2-core machine) no longer fails the test that stops it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { stopProcess } from '../lab/harness/stop-daemon';

const libSh = fileURLToPath(new URL('../lab/scripts/lib.sh', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A child that has reached its `ready` line: with ignoreTerm it has set SIGTERM to ignored first. */
async function daemon(options: { ignoreTerm: boolean }): Promise<{ child: ChildProcess; pid: number; ended: Promise<NodeJS.Signals | null> }> {
  const script = `${options.ignoreTerm ? 'trap "" TERM; ' : ''}echo ready; exec sleep 600`;
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  const ended = once(child, 'exit').then(([, signal]) => signal as NodeJS.Signals | null);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.once('exit', () => reject(new Error('the test daemon exited before it was ready')));
  });
  return { child, pid: child.pid!, ended };
}

type Stop = (pid: number, what: string, graceSeconds: number) => Promise<string>;

const shellStop: Stop = async (pid, what, graceSeconds) => {
  const { stderr } = await promisify(execFile)('bash', [
    '-c',
    `source "$1"; STOP_GRACE_SECONDS=${graceSeconds} stop_pids "$2" "$3"`,
    'bash',
    libSh,
    what,
    String(pid),
  ]);
  return stderr;
};

const harnessStop: Stop = async (pid, what, graceSeconds) => {
  const lines: string[] = [];
  await stopProcess(pid, { what, graceMs: graceSeconds * 1000, log: (line) => lines.push(line) });
  return lines.join('\n');
};

describe.each([
  ['stop_pids in scripts/lib.sh', shellStop],
  ['stopProcess in harness/stop-daemon.ts', harnessStop],
])('%s', (_name, stop) => {
  it('stops a daemon that exits on SIGTERM with SIGTERM, and says so', async () => {
    const { pid, ended } = await daemon({ ignoreTerm: false });
    const log = await stop(pid, 'test daemon', 5);
    await expect(ended).resolves.toBe('SIGTERM');
    expect(log).toMatch(new RegExp(`^\\[lab\\] stopped test daemon \\(pid ${pid}\\): SIGTERM, exited after \\d+\\.\\d s$`, 'm'));
  });

  it('sends SIGKILL to a daemon still running when the wait is over, and says so', async () => {
    const { pid, ended } = await daemon({ ignoreTerm: true });
    const log = await stop(pid, 'stubborn daemon', 1);
    await expect(ended).resolves.toBe('SIGKILL');
    expect(log).toMatch(new RegExp(`^\\[lab\\] stopped stubborn daemon \\(pid ${pid}\\): SIGKILL, still running 1 s after SIGTERM$`, 'm'));
  });
});

describe('stopProcess', () => {
  it('resolves with the signal that ended the process', async () => {
    const { pid } = await daemon({ ignoreTerm: true });
    await expect(stopProcess(pid, { what: 'stubborn daemon', graceMs: 200, log: () => undefined })).resolves.toMatchObject({ signal: 'SIGKILL' });
  });

  it('refuses a pid that does not run, naming it', async () => {
    const { pid, child, ended } = await daemon({ ignoreTerm: false });
    child.kill('SIGKILL');
    await ended;
    await expect(stopProcess(pid, { what: 'gone daemon', log: () => undefined })).rejects.toThrow(`gone daemon (pid ${pid}) is not running`);
  });
});
