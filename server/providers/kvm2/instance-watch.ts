// The contract's watchInstances over libvirt: one host event subscription per configured host,
// each domain lifecycle event reported as an InstanceChange, and a re-registration after a lost
// connection reported as `missed` (events in the gap are gone). Storage pool lifecycle and refresh
// events are reported as `targetChanged`: the host's health check reads its pool.
import {
  DomainEventResumedDetail,
  DomainEventStartedDetail,
  DomainEventStoppedDetail,
  DomainEventSuspendedDetail,
  DomainEventType,
  StoragePoolEventType,
  type DomainLifecycleEvent,
} from '@/server/libvirt';
import type { InstanceChange, InstanceWatch, InstanceWatcher } from '@/server/providers/contract';
import type { HostEventHandlers, HostEvents } from './host-events';
import { formatProviderID } from './provider-id';

type Names = Record<string, number>;

const invert = (names: Names): Record<number, string> => Object.fromEntries(Object.entries(names).map(([name, value]) => [value, name]));

const eventNames = invert(DomainEventType);
const poolEventNames = invert(StoragePoolEventType);

/** The detail names of the events whose detail matters to someone reading the log. */
const detailNames: Record<number, Record<number, string>> = {
  [DomainEventType.Stopped]: invert(DomainEventStoppedDetail),
  [DomainEventType.Suspended]: invert(DomainEventSuspendedDetail),
  [DomainEventType.Resumed]: invert(DomainEventResumedDetail),
  [DomainEventType.Started]: invert(DomainEventStartedDetail),
};

/** `Stopped/Destroyed`; numbers where libvirt sent a value this table does not know. */
export function lifecycleEventName({ event, detail }: Pick<DomainLifecycleEvent, 'event' | 'detail'>): string {
  const name = eventNames[event] ?? `Event${event}`;
  const details = detailNames[event];
  return details ? `${name}/${details[detail] ?? detail}` : name;
}

/** The change a lifecycle event on `host` reports; undefined for a name no providerID can hold. */
export function instanceChangeOf(host: string, event: DomainLifecycleEvent): InstanceChange | undefined {
  let providerID: string;
  try {
    providerID = formatProviderID({ host, domain: event.dom.name });
  } catch {
    return undefined; // not a name kvm2 gives its domains
  }
  return { providerID, name: event.dom.name, target: host, event: lifecycleEventName(event) };
}

export interface WatchHostsOptions {
  hosts: readonly string[];
  subscribe(host: string, handlers: HostEventHandlers): HostEvents;
  watcher: InstanceWatcher;
}

export function watchHosts({ hosts, subscribe, watcher }: WatchHostsOptions): InstanceWatch {
  const subscriptions = hosts.map((host) =>
    subscribe(host, {
      onDomainLifecycle: (event) => {
        const change = instanceChangeOf(host, event);
        if (change) watcher.changed(change);
      },
      onStoragePoolLifecycle: ({ pool, event }) => watcher.targetChanged?.(host, `pool ${pool.name} ${poolEventNames[event] ?? `event ${event}`}`),
      onStoragePoolRefresh: ({ pool }) => watcher.targetChanged?.(host, `pool ${pool.name} refreshed`),
      onSubscribed: ({ resubscribed }) => {
        if (resubscribed) watcher.missed?.(host);
      },
    }),
  );
  return {
    async stop() {
      await Promise.all(subscriptions.map((subscription) => subscription.close()));
    },
  };
}
