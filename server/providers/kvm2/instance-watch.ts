// The contract's watchInstances over libvirt: one host event subscription per configured host,
// each domain lifecycle event reported as an InstanceChange, and a re-registration after a lost
// connection reported as `missed` (events in the gap are gone). Storage pool lifecycle and refresh
// events are reported as `targetChanged`: the host's health check reads its pool.
// Each change carries the domain's state after it, so the host page can update that one row: as
// cockpit-machines does, Suspended and Resumed say it themselves and Undefined means the domain is
// gone; any other event is followed by one read of that domain's state (DomainGetState). A host's
// changes are reported in the order they came, the ones after a read waiting for it.
import { SpanKind } from '@opentelemetry/api';
import {
  DomainEventResumedDetail,
  DomainEventStartedDetail,
  DomainEventStoppedDetail,
  DomainEventSuspendedDetail,
  DomainEventType,
  StoragePoolEventType,
  type Domain,
  type DomainLifecycleEvent,
} from '@/server/libvirt';
import type { InstanceChange, InstanceWatch, InstanceWatcher } from '@/server/providers/contract';
import { tracer } from '@/server/telemetry/tracing';
import type { HostEventHandlers, HostEvents } from './host-events';
import { domainStateWords } from './inventory-read';
import type { HostBackend } from './libvirt-api';
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

/** The state (virsh's word) an event says by itself; the others are read. */
const stateOfEvent: Partial<Record<number, string>> = { [DomainEventType.Suspended]: 'paused', [DomainEventType.Resumed]: 'running' };

/** The change a lifecycle event on `host` reports (without the state); undefined for a name no providerID can hold. */
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
  /** the domain's state now, in virsh's words (one DomainGetState on the host's connection) */
  readState(host: string, dom: Domain): Promise<string>;
}

/**
 * One DomainGetState on the host's pooled connection (the one its events come on), in virsh's
 * word, under a `provider.watch.state` span (what an event costs shows in traces and bench:events).
 */
export function readDomainState(options: { backend: HostBackend; host: string; dom: Domain }): Promise<string> {
  const attributes = { 'kvm2.host': options.host, 'kvm2.domain': options.dom.name };
  // A root span: the event arrives in the context of the connection's dial, which it is not part of.
  return tracer().startActiveSpan('provider.watch.state', { root: true, kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const api = await options.backend.pooled(options.host);
      const { state } = await api.domainGetState({ dom: options.dom });
      return domainStateWords[state] ?? `state ${state}`;
    } finally {
      span.end();
    }
  });
}

/** The change with the domain's state after it: from the event where it says it, else read (none when the read fails). */
async function withState(options: { change: InstanceChange; event: DomainLifecycleEvent; read: () => Promise<string> }): Promise<InstanceChange> {
  const { change, event, read } = options;
  if (event.event === DomainEventType.Undefined) return { ...change, removed: true };
  const state = stateOfEvent[event.event] ?? (await read().catch(() => undefined));
  return state === undefined ? change : { ...change, state };
}

export function watchHosts({ hosts, subscribe, watcher, readState }: WatchHostsOptions): InstanceWatch {
  let stopped = false;
  const subscriptions = hosts.map((host) => {
    // One chain per host: a change waiting for its read holds back the changes after it.
    let reporting: Promise<void> = Promise.resolve();
    return subscribe(host, {
      onDomainLifecycle: (event) => {
        const change = instanceChangeOf(host, event);
        if (!change) return;
        const next = withState({ change, event, read: () => readState(host, event.dom) });
        reporting = reporting
          .then(async () => {
            const reported = await next;
            if (!stopped) watcher.changed(reported);
          })
          // A watcher that throws must not end the chain: the host's later changes still go out.
          .catch(() => undefined);
      },
      onStoragePoolLifecycle: ({ pool, event }) => watcher.targetChanged?.(host, `pool ${pool.name} ${poolEventNames[event] ?? `event ${event}`}`),
      onStoragePoolRefresh: ({ pool }) => watcher.targetChanged?.(host, `pool ${pool.name} refreshed`),
      onSubscribed: ({ resubscribed }) => {
        if (resubscribed) watcher.missed?.(host);
      },
    });
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(subscriptions.map((subscription) => subscription.close()));
    },
  };
}
