// Event subscriptions on one connection. A REGISTER_ANY call returns a callbackID; from then on
// the daemon sends MESSAGE packets (serial 0, no reply) naming it, which the hub decodes with the
// declared message shape and hands to that subscription's listener. Subscriptions die with their
// connection: each one's `ended` settles with the connection's own typed error, so a holder knows
// to redial and register again (libvirtd forgets callbacks with the connection that made them).
import { ProtocolError } from './errors';
import type { Packet } from './framing';
import { eventMessages, type EventName, type EventOf } from './protocol';
import { decodeXdr } from './xdr';

export interface EventSubscription {
  /** The daemon's callbackID for this registration. */
  readonly callbackID: number;
  /**
   * Settles once the subscription is over: with the connection's error when the connection ended
   * (ConnectionClosedError, ConnectionKilledError, ...), with null when it was deregistered.
   */
  readonly ended: Promise<Error | null>;
  /** DEREGISTER_ANY; events still in flight are dropped. Never throws once the connection is gone. */
  deregister(): Promise<void>;
}

interface Entry {
  event: EventName;
  deliver: (message: unknown) => void;
  end: (reason: Error | null) => void;
}

const byProcedure = new Map<number, EventName>((Object.keys(eventMessages) as EventName[]).map((name) => [eventMessages[name].proc, name]));

/**
 * Subscriptions by event and callbackID: libvirtd numbers each driver's callbacks on its own
 * (domain events in the hypervisor driver, pool events in the storage driver), so a domain and a
 * pool registration on one connection can both get callbackID 0.
 */
const keyOf = (event: EventName, callbackID: number) => `${event}:${callbackID}`;

export class EventHub {
  private readonly entries = new Map<string, Entry>();
  private reason: Error | null = null;

  /** True when `procedure` is an event message this hub decodes. */
  handles(procedure: number): boolean {
    return byProcedure.has(procedure);
  }

  /**
   * Adds a subscription for `callbackID`. Called synchronously with the REGISTER reply, so no
   * event that follows the reply on the wire can arrive before its listener exists.
   */
  add<N extends EventName>(
    callbackID: number,
    options: { event: N; listener: (message: EventOf<N>) => void; deregister: () => Promise<void> },
  ): EventSubscription {
    let end!: (reason: Error | null) => void;
    const ended = new Promise<Error | null>((resolve) => (end = resolve));
    if (this.reason) {
      end(this.reason);
    } else {
      this.entries.set(keyOf(options.event, callbackID), {
        event: options.event,
        deliver: (message) => options.listener(message as EventOf<N>),
        end,
      });
    }
    return {
      callbackID,
      ended,
      deregister: async () => {
        const key = keyOf(options.event, callbackID);
        const entry = this.entries.get(key);
        if (!entry) return;
        this.entries.delete(key);
        entry.end(null);
        await options.deregister().catch(() => undefined);
      },
    };
  }

  /** Decodes an event MESSAGE and hands it to its subscription; a malformed one is a ProtocolError. */
  dispatch(packet: Packet): void {
    const name = byProcedure.get(packet.header.procedure);
    if (!name) return;
    let message: { callbackID: number };
    try {
      message = decodeXdr(eventMessages[name].msg as never, packet.payload);
    } catch (err) {
      throw new ProtocolError(`malformed ${name} event: ${(err as Error).message}`, { cause: err });
    }
    const entry = this.entries.get(keyOf(name, message.callbackID));
    // A callback just deregistered may still have events on the wire; they are dropped.
    if (!entry) return;
    try {
      entry.deliver(message);
    } catch {
      // A listener's failure is its own: it must not take the connection or other listeners down.
    }
  }

  /** The connection ended: every subscription ends with its reason. */
  fail(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) entry.end(reason);
  }
}
