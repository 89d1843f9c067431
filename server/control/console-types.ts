// What the console manager (console-manager.ts) shows its callers: a console's status, the watcher
// a page registers, where a Proxy's console is, a watch, and the error for keystrokes to a console
// not open here.
import { AppError } from '@/server/errors';

/** What a page shows above the terminal; `message` says why when not live. */
export type ConsoleStatus = { state: 'opening' } | { state: 'live' } | { state: 'busy'; message: string } | { state: 'closed'; message: string };

export interface ConsoleWatcher {
  output(data: Buffer): void;
  status(status: ConsoleStatus): void;
}

/** Where a Proxy's console is: gone, not a VM, or its provider and instance (none yet while Pending). */
export type ConsoleTarget = { kind: 'missing' } | { kind: 'static' } | { kind: 'managed'; provider: string; providerID?: string };

export interface ConsoleWatch {
  /** the buffered output so far */
  snapshot: Buffer;
  status: ConsoleStatus;
  stop(): void;
}

/** Keystrokes for a console not open here: busy (another client holds it) or closed. */
export class ConsoleInputError extends AppError {
  readonly code: 'ERR_CONSOLE_BUSY' | 'ERR_RESOURCE_UNAVAILABLE';
  constructor(proxy: string, status: ConsoleStatus) {
    super(`the console of Proxy ${JSON.stringify(proxy)} is not open here${'message' in status ? `: ${status.message}` : ''}`);
    this.name = 'ConsoleInputError';
    this.code = status.state === 'busy' ? 'ERR_CONSOLE_BUSY' : 'ERR_RESOURCE_UNAVAILABLE';
  }
}
