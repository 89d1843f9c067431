// An optional capability of the provider contract: the serial console of a managed instance as a
// two-way byte stream (kvm2: libvirt's DOMAIN_OPEN_CONSOLE on the host's pooled connection). Only
// one client may hold a console: without `force` a console someone else holds (an admin's
// `virsh console`, another server) is ConsoleBusyError, never taken silently.
import type { CallOptions } from './contract';
import { AppError } from '@/server/errors';

export interface ConsoleSession {
  /** What the guest prints, in order; ends when the console ends, throws why it broke. Read it once. */
  readonly output: AsyncIterable<Uint8Array>;
  /** Sends keystrokes to the guest. */
  send(data: Uint8Array): Promise<void>;
  /** Releases the console (never throws). */
  close(): Promise<void>;
}

export interface OpenConsoleOptions extends CallOptions {
  /** take the console from whoever holds it; their session ends */
  force?: boolean;
}

export interface InstanceConsole {
  /** ConsoleBusyError when another client holds it and `force` is not set; ErrNotFound when the instance is gone. */
  open(providerID: string, options?: OpenConsoleOptions): Promise<ConsoleSession>;
}

/** Another client holds the console; opening with `force` takes it over (and disconnects that client). */
export class ConsoleBusyError extends AppError {
  readonly code = 'ERR_CONSOLE_BUSY';
  constructor(
    readonly host: string,
    readonly instance: string,
    options?: { cause?: unknown },
  ) {
    super(
      `another client holds the serial console of ${instance} on host ${host} (an admin's virsh console, say); ` + '"take over" disconnects that client',
      options,
    );
    this.name = 'ConsoleBusyError';
  }
}
