// One Proxy's console as the console manager (console-manager.ts) holds it: the session, the
// buffer of what it printed, the pages watching, its status and the clocks of its idle release,
// with the steps that need nothing from the manager: a status change reaches every watcher, output
// reaches the buffer and every watcher, and the opens of one console run one after another.
import type { ConsoleSession } from '@/server/providers/instance-console';
import type { TimerHandle } from './clock';
import { ConsoleBuffer } from './console-buffer';
import type { ConsoleStatus, ConsoleWatcher } from './console-types';

export interface ConsoleEntry {
  proxy: string;
  buffer: ConsoleBuffer;
  watchers: Set<ConsoleWatcher>;
  /** the instance the buffer and the session belong to */
  providerID?: string;
  session?: ConsoleSession;
  status: ConsoleStatus;
  /** the open in flight, so opens of one console never overlap */
  opening?: Promise<void>;
  idleTimer?: TimerHandle;
  /** last time a watcher was there or the Proxy was booting (clock ms) */
  lastNeededAt: number;
  /** when an open last failed or another client took the console (clock ms): resumed boot capture waits idleReleaseMs after it */
  refusedAt?: number;
}

export const notOpenYet: ConsoleStatus = { state: 'closed', message: 'not opened yet' };

export function newConsoleEntry(options: { proxy: string; bufferBytes: number; nowMs: number }): ConsoleEntry {
  return { proxy: options.proxy, buffer: new ConsoleBuffer(options.bufferBytes), watchers: new Set(), status: notOpenYet, lastNeededAt: options.nowMs };
}

export function setConsoleStatus(entry: ConsoleEntry, status: ConsoleStatus): void {
  entry.status = status;
  for (const watcher of entry.watchers) watcher.status(status);
}

/** What the session printed: kept in the buffer and passed to every watcher. */
export function deliverOutput(entry: ConsoleEntry, data: Buffer): void {
  entry.buffer.append(data);
  for (const watcher of entry.watchers) watcher.output(data);
}

/** Runs `open` once the open in flight (if any) has settled; settles as `open` does. */
export function chainOpen(entry: ConsoleEntry, open: () => Promise<void>): Promise<void> {
  const run = (entry.opening ?? Promise.resolve()).then(open);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  entry.opening = settled;
  void settled.then(() => {
    if (entry.opening === settled) entry.opening = undefined;
  });
  return run;
}
