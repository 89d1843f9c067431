// libvirt events from one host, kept flowing across redials. libvirtd forgets a callback with the
// connection that registered it, so a subscription made once is silently gone after a libvirtd
// restart or a dropped SSH link. This loop registers on the host's pooled connection, waits for
// that registration to end, and registers again on whatever connection the backend dials next,
// backing off while the host is unreachable. Events sent while no registration stood are lost:
// `onSubscribed` with `resubscribed: true` tells the consumer to resync.
import type { DomainLifecycleEvent, EventSubscription, StoragePool, StoragePoolLifecycleEvent } from '@/server/libvirt';
import type { Logger } from '@/server/telemetry/logger';
import { sleep } from './context';
import type { HostBackend, LibvirtAPI } from './libvirt-api';
import { errorMessage } from '@/lib/error-message';

export interface HostEventHandlers {
  onDomainLifecycle?(event: DomainLifecycleEvent): void;
  onStoragePoolLifecycle?(event: StoragePoolLifecycleEvent): void;
  onStoragePoolRefresh?(event: { pool: StoragePool }): void;
  /** Registered; `resubscribed` after a lost connection (events in the gap were missed). */
  onSubscribed?(info: { host: string; resubscribed: boolean }): void;
  /** The registration ended with its connection; the loop redials and registers again. */
  onLost?(info: { host: string; error: Error }): void;
}

export interface HostEventsOptions {
  backend: HostBackend;
  host: string;
  handlers: HostEventHandlers;
  logger: Logger;
  /** Delay before retrying a failed registration, doubled per failure up to maxRetryMs. Default 1 s. */
  retryMs?: number;
  /** Default 30 s. */
  maxRetryMs?: number;
}

export interface HostEvents {
  /** Deregisters and stops re-registering. */
  close(): Promise<void>;
}

type Registration = (api: LibvirtAPI, handlers: HostEventHandlers) => Promise<EventSubscription> | undefined;

/** One row per event kind: registered only when its handler is there. */
const registrations: Registration[] = [
  (api, { onDomainLifecycle }) => onDomainLifecycle && api.connectDomainEventLifecycleRegister({ listener: onDomainLifecycle }),
  (api, { onStoragePoolLifecycle }) => onStoragePoolLifecycle && api.connectStoragePoolEventLifecycleRegister({ listener: onStoragePoolLifecycle }),
  (api, { onStoragePoolRefresh }) => onStoragePoolRefresh && api.connectStoragePoolEventRefreshRegister({ listener: onStoragePoolRefresh }),
];

/** Subscribes to `host`'s events and re-registers after every redial until closed. */
export function subscribeHostEvents(options: HostEventsOptions): HostEvents {
  const { backend, host, handlers } = options;
  const { onDomainLifecycle, onStoragePoolLifecycle, onStoragePoolRefresh } = handlers;
  if (!onDomainLifecycle && !onStoragePoolLifecycle && !onStoragePoolRefresh) {
    throw new TypeError('subscribeHostEvents needs at least one event handler (onDomainLifecycle, onStoragePoolLifecycle, onStoragePoolRefresh)');
  }
  const logger = options.logger.child({ host });
  const retryMs = options.retryMs ?? 1_000;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  const stop = new AbortController();
  let current: EventSubscription[] = [];

  // Ends early when closed; a rejected sleep is that close, and the loop checks for it next.
  const pause = (ms: number) => sleep(ms, stop.signal).catch(() => undefined);

  /** Registers every kind on the pooled connection; all or none. */
  const registerAll = async (): Promise<EventSubscription[]> => {
    const api = await backend.pooled(host, { signal: stop.signal });
    const settled = await Promise.allSettled(registrations.map((register) => register(api, handlers)).filter((pending) => pending !== undefined));
    const made = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failure = settled.find((result) => result.status === 'rejected');
    if (failure) {
      await Promise.all(made.map((subscription) => subscription.deregister()));
      throw failure.reason;
    }
    return made;
  };

  const run = async () => {
    let delay = retryMs;
    let registeredBefore = false;
    while (!stop.signal.aborted) {
      try {
        current = await registerAll();
      } catch (err) {
        if (stop.signal.aborted) break;
        logger.debug({ error: errorMessage(err), retryMs: delay }, 'libvirt event registration failed');
        await pause(delay);
        delay = Math.min(delay * 2, maxRetryMs);
        continue;
      }
      if (stop.signal.aborted) break;
      delay = retryMs;
      logger.debug({ resubscribed: registeredBefore, registrations: current.length }, 'libvirt events subscribed');
      handlers.onSubscribed?.({ host, resubscribed: registeredBefore });
      registeredBefore = true;
      const reason = await Promise.race(current.map((subscription) => subscription.ended));
      if (stop.signal.aborted) break;
      // The connection is gone (or a registration was dropped): every registration on it goes too.
      await Promise.all(current.map((subscription) => subscription.deregister()));
      const error = reason ?? new Error('an event registration was dropped');
      logger.debug({ error: error.message }, 'libvirt events lost; registering again');
      handlers.onLost?.({ host, error });
    }
  };

  const running = run();
  return {
    async close() {
      stop.abort();
      const deregisterCurrent = () => Promise.all(current.map((subscription) => subscription.deregister()));
      // Deregistering ends the wait in the loop; a registration that was under way ends after it.
      await deregisterCurrent();
      await running;
      await deregisterCurrent();
      current = [];
    },
  };
}
