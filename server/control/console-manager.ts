// The serial consoles the server holds, one entry per Proxy: the provider's console session (at
// most one), a ring buffer of what it printed, and the pages watching it. A console opens when a
// page watches it, or from a VM's first start while its Proxy is Provisioning (boot capture, so
// the boot log is there when someone looks), and again from any later reconcile pass that finds
// the Proxy still booting with nothing held here (after a restart or a change of leader); it is
// released once no page has watched it for the idle period and its Proxy is no longer booting.
// Without "take over" it never forces: a console an admin holds (`virsh console`) shows as busy.
// Keystrokes pass through and are never logged. What it holds for each console: console-entry.ts.
import { ConsoleBusyError, type ConsoleSession } from '@/server/providers/instance-console';
import type { Logger } from '@/server/telemetry/logger';
import type { Clock } from './clock';
import { defaultConsoleBufferBytes } from './console-buffer';
import { chainOpen, type ConsoleEntry, deliverOutput, newConsoleEntry, notOpenYet, setConsoleStatus } from './console-entry';
import { type ConsoleStatus, type ConsoleTarget, type ConsoleWatch, type ConsoleWatcher, ConsoleInputError } from './console-types';
import { errorMessage } from '@/lib/error-message';
import type { ProviderLookup } from './provider-set';

export interface ConsoleManagerOptions {
  providers: ProviderLookup;
  locate(proxy: string): Promise<ConsoleTarget>;
  /** true while the Proxy has not been Ready yet since its VM started: boot capture holds the console */
  booting(proxy: string): Promise<boolean>;
  clock: Clock;
  logger: Logger;
  /** release after this long without a watcher (and not booting); also how long resumed boot capture waits after a refusal */
  idleReleaseMs: number;
  bufferBytes?: number;
}

interface OpenOptions {
  /** take the console from whoever holds it (the page's "take over") */
  force: boolean;
  /** the instance a VM start just made (boot capture), before the Proxy's status names it */
  startedID?: string;
  /** a VM was just started: its log starts afresh, even under the same providerID */
  fresh?: boolean;
  /** throw what refused the open instead of only showing it in the status */
  rethrow?: boolean;
}

export class ConsoleManager {
  private readonly entries = new Map<string, ConsoleEntry>();
  private stopped = false;

  constructor(private readonly options: ConsoleManagerOptions) {}

  /** The buffered console output of a Proxy as text; undefined when none was captured. */
  consoleLog(proxy: string): string | undefined {
    const entry = this.entries.get(proxy);
    return entry && entry.buffer.length > 0 ? entry.buffer.text() : undefined;
  }

  status(proxy: string): ConsoleStatus {
    return this.entries.get(proxy)?.status ?? notOpenYet;
  }

  /** A page watches: it gets the buffer, then live output and status changes; opens the console if needed. */
  watch(proxy: string, watcher: ConsoleWatcher): ConsoleWatch {
    const entry = this.entry(proxy);
    entry.watchers.add(watcher);
    this.cancelIdle(entry);
    if (!entry.session && !entry.opening) void this.open(entry, { force: false });
    return {
      snapshot: Buffer.from(entry.buffer.bytes()),
      status: entry.status,
      stop: () => {
        if (!entry.watchers.delete(watcher)) return;
        entry.lastNeededAt = this.options.clock.now();
        this.scheduleIdle(entry);
      },
    };
  }

  /** Boot capture: the instance was just started (its first start, or a replacement's). */
  capture(proxy: string, providerID: string): void {
    if (this.stopped) return;
    const entry = this.entry(proxy);
    entry.lastNeededAt = this.options.clock.now();
    void this.open(entry, { force: false, startedID: providerID, fresh: true });
  }

  /** The Proxy's record is gone: its console goes too (session, buffer), never shown under its name again. */
  forget(proxy: string): void {
    const entry = this.entries.get(proxy);
    if (!entry) return;
    this.entries.delete(proxy);
    this.releaseOnceOpened(entry, 'the Proxy is gone').catch((err: unknown) =>
      this.options.logger.warn({ proxy, error: errorMessage(err) }, 'releasing the console of a deleted Proxy failed'),
    );
  }

  /**
   * Boot capture of a VM started earlier (by another process, or before a restart): opens its
   * console, without force, when nothing holds it here and the Proxy is still booting. Cheap when
   * held (no provider call); after a failed open (another client holds it) or after another client
   * took it, it waits the idle period before asking again.
   */
  resumeCapture(proxy: string, providerID: string): void {
    if (this.stopped) return;
    const entry = this.entries.get(proxy);
    if (entry && entry.providerID === providerID) {
      if (entry.session || entry.opening) return;
      if (entry.refusedAt !== undefined && this.options.clock.now() - entry.refusedAt < this.options.idleReleaseMs) return;
    }
    this.resumeIfBooting(proxy, providerID).catch((err: unknown) =>
      this.options.logger.warn({ proxy, error: errorMessage(err) }, 'resuming boot capture failed'),
    );
  }

  private async resumeIfBooting(proxy: string, providerID: string): Promise<void> {
    if (!(await this.options.booting(proxy))) return;
    const entry = this.entry(proxy);
    entry.lastNeededAt = this.options.clock.now();
    await this.open(entry, { force: false, startedID: providerID });
    if (entry.status.state === 'busy') this.options.logger.info({ proxy, providerID }, 'boot capture left the console alone: another client holds it');
  }

  /** Takes the console from whoever holds it (their session ends); resolves with the status after. */
  async takeOver(proxy: string): Promise<ConsoleStatus> {
    const entry = this.entry(proxy);
    await entry.opening;
    if (entry.status.state !== 'live') await this.open(entry, { force: true, rethrow: true });
    return entry.status;
  }

  /** Keystrokes to the guest; ConsoleInputError when the console is not open here. */
  async input(proxy: string, data: Uint8Array): Promise<void> {
    const entry = this.entries.get(proxy);
    if (!entry?.session) throw new ConsoleInputError(proxy, entry?.status ?? notOpenYet);
    await entry.session.send(data);
  }

  /** Releases the consoles no page watches (boot capture's): the replica stopped leading, the new leader captures. */
  async releaseUnwatched(reason: string): Promise<void> {
    const entries = [...this.entries.values()].filter((entry) => entry.watchers.size === 0);
    await Promise.all(
      entries.map(async (entry) => {
        this.cancelIdle(entry);
        await entry.opening;
        if (entry.watchers.size === 0) await this.release(entry, reason);
      }),
    );
  }

  /** Releases every console (runtime stop). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.entries.values()].map((entry) => this.releaseOnceOpened(entry, 'the server is stopping')));
  }

  /** Releases the entry's session after the open in flight, if any, has settled (it may be opening one). */
  private async releaseOnceOpened(entry: ConsoleEntry, message: string): Promise<void> {
    this.cancelIdle(entry);
    await entry.opening;
    await this.release(entry, message);
  }

  private entry(proxy: string): ConsoleEntry {
    let entry = this.entries.get(proxy);
    if (!entry) {
      entry = newConsoleEntry({ proxy, bufferBytes: this.options.bufferBytes ?? defaultConsoleBufferBytes, nowMs: this.options.clock.now() });
      this.entries.set(proxy, entry);
    }
    return entry;
  }

  private open(entry: ConsoleEntry, options: OpenOptions): Promise<void> {
    return chainOpen(entry, () => this.openNow(entry, options));
  }

  private async openNow(entry: ConsoleEntry, options: OpenOptions): Promise<void> {
    const { force, startedID, fresh } = options;
    if (this.stopped) return;
    const target = await this.options.locate(entry.proxy);
    const providerID = startedID ?? (target.kind === 'managed' ? target.providerID : undefined);
    if (target.kind !== 'managed' || providerID === undefined) {
      const message = target.kind === 'managed' ? 'the Proxy has no VM yet; its console opens when the VM starts' : 'the Proxy has no VM';
      if (!entry.session) setConsoleStatus(entry, { state: 'closed', message });
      return;
    }
    if (entry.providerID !== providerID || fresh) {
      // Another VM: its console and its boot log start afresh. Instance names come from the Proxy's
      // name, so a replacement, or a new Proxy of a deleted one's name, has the same providerID.
      await this.release(entry, 'the Proxy has a new VM');
      entry.buffer.clear();
      entry.providerID = providerID;
      entry.refusedAt = undefined;
    }
    if (entry.session && !force) return;
    const console = this.options.providers.get(target.provider)?.console;
    if (!console) {
      setConsoleStatus(entry, { state: 'closed', message: `provider ${JSON.stringify(target.provider)} is not running or cannot open consoles` });
      return;
    }
    if (!entry.session) setConsoleStatus(entry, { state: 'opening' });
    let session: ConsoleSession;
    try {
      session = await console.open(providerID, { force });
    } catch (err) {
      entry.refusedAt = this.options.clock.now();
      if (!entry.session)
        setConsoleStatus(entry, err instanceof ConsoleBusyError ? { state: 'busy', message: err.message } : { state: 'closed', message: errorMessage(err) });
      this.options.logger.debug({ proxy: entry.proxy, providerID, force, error: errorMessage(err) }, 'console not opened');
      if (options.rethrow) throw err;
      return;
    }
    // A forced open while we held it ourselves replaces our own session.
    const replaced = entry.session;
    entry.session = session;
    entry.refusedAt = undefined;
    if (replaced) void replaced.close();
    this.options.logger.debug({ proxy: entry.proxy, providerID, force }, 'console opened');
    setConsoleStatus(entry, { state: 'live' });
    void this.pump(entry, session);
    // Nobody may be watching (boot capture, or the page left during the open): the idle clock runs.
    this.scheduleIdle(entry);
  }

  private async pump(entry: ConsoleEntry, session: ConsoleSession): Promise<void> {
    let message = 'the console ended (the VM stopped)';
    let takenAway = false;
    try {
      for await (const chunk of session.output) {
        deliverOutput(entry, Buffer.from(chunk));
      }
    } catch (err) {
      takenAway = true;
      message = `the console was closed: another client took it over, or the connection to the host broke (${errorMessage(err)})`;
    }
    if (entry.session !== session) return;
    entry.session = undefined;
    this.options.logger.debug({ proxy: entry.proxy, providerID: entry.providerID, reason: message }, 'console closed');
    // Resumed boot capture does not snatch it back from whoever took it.
    if (takenAway) entry.refusedAt = this.options.clock.now();
    this.cancelIdle(entry);
    setConsoleStatus(entry, { state: 'closed', message });
    this.forgetIfGone(entry).catch((err: unknown) =>
      this.options.logger.warn({ proxy: entry.proxy, error: errorMessage(err) }, 'looking up the Proxy of a closed console failed'),
    );
  }

  private async release(entry: ConsoleEntry, message: string): Promise<void> {
    const session = entry.session;
    if (!session) return;
    entry.session = undefined;
    setConsoleStatus(entry, { state: 'closed', message });
    await session.close();
    this.options.logger.debug({ proxy: entry.proxy, providerID: entry.providerID, reason: message }, 'console released');
  }

  private cancelIdle(entry: ConsoleEntry): void {
    if (entry.idleTimer === undefined) return;
    this.options.clock.clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  }

  /** While a session is open and nobody watches: checks now and then whether it may go. */
  private scheduleIdle(entry: ConsoleEntry): void {
    if (this.stopped || entry.idleTimer !== undefined || entry.watchers.size > 0 || !entry.session) return;
    const { clock, idleReleaseMs } = this.options;
    // Checked a few times per period, so a release follows the end of boot by at most a quarter of it.
    const checkMs = Math.max(1, Math.min(idleReleaseMs, Math.ceil(idleReleaseMs / 4)));
    entry.idleTimer = clock.setTimeout(() => {
      entry.idleTimer = undefined;
      this.idleCheck(entry).catch((err: unknown) =>
        this.options.logger.warn({ proxy: entry.proxy, error: errorMessage(err) }, 'checking an idle console failed'),
      );
    }, checkMs);
  }

  private async idleCheck(entry: ConsoleEntry): Promise<void> {
    const { clock, idleReleaseMs } = this.options;
    if (entry.watchers.size > 0 || !entry.session) return;
    if (await this.forgetIfGone(entry)) return;
    if (await this.options.booting(entry.proxy)) entry.lastNeededAt = clock.now();
    if (clock.now() - entry.lastNeededAt >= idleReleaseMs) {
      await this.release(entry, `released: nobody watched it for ${Math.round(idleReleaseMs / 1000)} s`);
      return;
    }
    this.scheduleIdle(entry);
  }

  /** Drops the entry of a Proxy that no longer exists (its session released); true when dropped. */
  private async forgetIfGone(entry: ConsoleEntry): Promise<boolean> {
    if ((await this.options.locate(entry.proxy)).kind !== 'missing') return false;
    this.cancelIdle(entry);
    void this.release(entry, 'the Proxy is gone');
    if (entry.watchers.size === 0) this.entries.delete(entry.proxy);
    return true;
  }
}
