// How the lab's tests stop a daemon (a host's libvirtd or sshd, say): SIGTERM, a bounded wait, then
// SIGKILL, and a line saying which ended it; the same protocol and line as stop_pids in
// scripts/lib.sh. A bounded wait because a daemon may take long to exit on SIGTERM (lab2's
// libvirtd 11.3 took more than 20 s on a busy 2-core machine) and the tests want it down, not
// shut down gracefully.
import { readFileSync } from 'node:fs';
import { hostDaemonPid, type LabHost } from './lab';

export interface StopResult {
  /** the signal that ended the process */
  signal: 'SIGTERM' | 'SIGKILL';
  /** from SIGTERM until the process was seen gone */
  afterMs: number;
}

export interface StopOptions {
  /** names the process in the log line and in errors: "libvirtd of lab2" */
  what: string;
  /** how long the process gets to exit on SIGTERM (10 s, as stop_pids) */
  graceMs?: number;
  /** where the line saying which signal ended it goes (stderr, with the scripts' [lab] prefix) */
  log?: (line: string) => void;
}

const pollMs = 100;
// A process SIGKILL cannot end at once is in an uninterruptible wait: give it this long.
const killWaitMs = 5_000;

/**
 * The process's start time (field 22 of /proc/PID/stat), or undefined when PID does not run: gone,
 * or a zombie (its parent has not reaped it yet, but it is no daemon any more).
 */
function startTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' ? undefined : fields[19];
}

/** Resolves once PID (started at START) has gone, with true, or after MS with false. */
async function exited(pid: number, start: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  // The start time tells a reused pid from the process being stopped.
  while (startTime(pid) === start) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return true;
}

const seconds = (ms: number) => (Math.floor(ms / 100) / 10).toFixed(1);

/** Stops PID: SIGTERM, up to graceMs for it to exit, then SIGKILL. Rejects when it is not running. */
export async function stopProcess(pid: number, options: StopOptions): Promise<StopResult> {
  const { what, graceMs = 10_000, log = (line: string) => process.stderr.write(`${line}\n`) } = options;
  const start = startTime(pid);
  if (start === undefined) throw new Error(`${what} (pid ${pid}) is not running`);
  const sent = Date.now();
  process.kill(pid, 'SIGTERM');
  if (await exited(pid, start, graceMs)) {
    const afterMs = Date.now() - sent;
    log(`[lab] stopped ${what} (pid ${pid}): SIGTERM, exited after ${seconds(afterMs)} s`);
    return { signal: 'SIGTERM', afterMs };
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // It exited between the last look and this signal: SIGTERM ended it after all.
    const afterMs = Date.now() - sent;
    log(`[lab] stopped ${what} (pid ${pid}): SIGTERM, exited after ${seconds(afterMs)} s`);
    return { signal: 'SIGTERM', afterMs };
  }
  log(`[lab] stopped ${what} (pid ${pid}): SIGKILL, still running ${graceMs / 1000} s after SIGTERM`);
  if (!(await exited(pid, start, killWaitMs))) throw new Error(`${what} (pid ${pid}) still runs ${killWaitMs / 1000} s after SIGKILL`);
  return { signal: 'SIGKILL', afterMs: Date.now() - sent };
}

/** Stops DAEMON (libvirtd, sshd, ...) of lab HOST with stopProcess; up.sh starts it again. */
export function stopHostDaemon(host: LabHost, daemon: string, options: Omit<StopOptions, 'what'> = {}): Promise<StopResult> {
  return stopProcess(hostDaemonPid(host, daemon), { ...options, what: `${daemon} of ${host.name}` });
}
