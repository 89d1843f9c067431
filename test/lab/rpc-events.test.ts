// libvirt events from the lab's real libvirtd over real sshd: root's `virsh suspend`, `resume`,
// `destroy` and `start` of a domain produce the matching lifecycle messages on our subscription;
// pool start, stop and refresh produce the storage pool ones; and after a libvirtd restart the
// kvm2 host subscription registers again on a fresh connection and events arrive again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DomainEventResumedDetail,
  DomainEventStartedDetail,
  DomainEventStoppedDetail,
  DomainEventSuspendedDetail,
  DomainEventType,
  StoragePoolEventType,
  type DomainLifecycleEvent,
  type EventSubscription,
  type LibvirtClient,
} from '@/server/libvirt';
import { type Lab, virsh } from './harness/lab';
import { Kvm2LabRun } from './kvm2-provider-support';
import { idleDomainSuite, restartLibvirtd } from './rpc-domain-support';
import { uniqueName } from './rpc-lab-support';

const name = uniqueName('events');
const suite = idleDomainSuite({ name });
let lab: Lab;
let libvirt: LibvirtClient;
beforeAll(() => {
  ({ lab, libvirt } = suite);
});
afterAll(async () => {
  await virsh(['pool-destroy', lab.inactivePool.name]).catch(() => undefined);
});

/** Resolves with the first item `list` gets that matches, within `timeoutMs`. */
async function arrival<T>(list: T[], matches: (item: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const index = list.findIndex(matches);
    if (index >= 0) return list[index] as T;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const about = (event: number, detail: number) => (item: DomainLifecycleEvent) => item.dom.name === name && item.event === event && item.detail === detail;

describe('domain lifecycle events', () => {
  const events: DomainLifecycleEvent[] = [];
  let subscription: EventSubscription;

  it('registers (316) and gets suspend, resume, destroy and start as they happen', async () => {
    subscription = await libvirt.connectDomainEventLifecycleRegister({ listener: (event) => events.push(event) });
    expect(subscription.callbackID).toBeGreaterThanOrEqual(0);
    await virsh(['suspend', name]);
    await arrival(events, about(DomainEventType.Suspended, DomainEventSuspendedDetail.Paused), 'suspended event');
    await virsh(['resume', name]);
    await arrival(events, about(DomainEventType.Resumed, DomainEventResumedDetail.Unpaused), 'resumed event');
    await virsh(['destroy', name]);
    await arrival(events, about(DomainEventType.Stopped, DomainEventStoppedDetail.Destroyed), 'destroyed event');
    await virsh(['start', name]);
    const started = await arrival(events, about(DomainEventType.Started, DomainEventStartedDetail.Booted), 'started event');
    expect(started.dom.uuid.toString('hex')).toBe((await virsh(['domuuid', name])).trim().replaceAll('-', ''));
  });

  it('calls on the same connection keep working while events arrive', async () => {
    const [hostname] = await Promise.all([libvirt.connectGetHostname(), virsh(['suspend', name])]);
    expect(hostname).toBe((await virsh(['hostname'])).trim());
    await arrival(events, (item) => item.dom.name === name && item.event === DomainEventType.Suspended && events.indexOf(item) > 0, 'a second suspend');
    await virsh(['resume', name]);
  });

  it('deregisters (317): no more events reach it', async () => {
    await subscription.deregister();
    expect(await subscription.ended).toBeNull();
    const before = events.length;
    // The gate: a second subscription on the same connection, for this domain only (libvirtd takes
    // one every-domain callback per connection). libvirtd hands each event to its callbacks in the
    // order they registered and the connection delivers in order, so once this one has the resume,
    // the deregistered one would have had the suspend and the resume already.
    const witnessed: DomainLifecycleEvent[] = [];
    const dom = await libvirt.domainLookupByName({ name });
    const witness = await libvirt.connectDomainEventLifecycleRegister({ dom, listener: (event) => witnessed.push(event) });
    try {
      await virsh(['suspend', name]);
      await virsh(['resume', name]);
      await arrival(witnessed, about(DomainEventType.Resumed, DomainEventResumedDetail.Unpaused), "the witness's resumed event");
    } finally {
      await witness.deregister();
    }
    expect(events.length).toBe(before);
  });
});

describe('storage pool events', () => {
  it('registers (368) and gets a pool started, refreshed and stopped', async () => {
    const seen: string[] = [];
    const lifecycle = await libvirt.connectStoragePoolEventLifecycleRegister({ listener: ({ pool, event }) => seen.push(`${pool.name}:${event}`) });
    const refresh = await libvirt.connectStoragePoolEventRefreshRegister({ listener: ({ pool }) => seen.push(`${pool.name}:refresh`) });
    const pool = lab.inactivePool.name;
    await virsh(['pool-start', pool]);
    await arrival(seen, (item) => item === `${pool}:${StoragePoolEventType.Started}`, 'pool started event');
    await virsh(['pool-refresh', pool]);
    await arrival(seen, (item) => item === `${pool}:refresh`, 'pool refresh event');
    await virsh(['pool-destroy', pool]);
    await arrival(seen, (item) => item === `${pool}:${StoragePoolEventType.Stopped}`, 'pool stopped event');
    await lifecycle.deregister();
    await refresh.deregister();
  });
});

describe('the kvm2 host subscription across a libvirtd restart', () => {
  it('ends with the connection, registers again on the redialled one, and events arrive again', async () => {
    const run = new Kvm2LabRun(lab);
    const provider = run.provider();
    const events: DomainLifecycleEvent[] = [];
    const subscribed: boolean[] = [];
    const lost: Error[] = [];
    const subscription = provider.subscribeHostEvents(lab.hosts[0]!.name, {
      onDomainLifecycle: (event) => events.push(event),
      onSubscribed: ({ resubscribed }) => subscribed.push(resubscribed),
      onLost: ({ error }) => lost.push(error),
    });
    try {
      await arrival(subscribed, (item) => item === false, 'the first registration');
      await virsh(['suspend', name]);
      await arrival(events, about(DomainEventType.Suspended, DomainEventSuspendedDetail.Paused), 'suspended event before the restart');

      await restartLibvirtd();
      await arrival(lost, () => true, 'the subscription ending with its connection', 30_000);
      expect(lost[0]?.name).toBe('ConnectionClosedError');
      await arrival(subscribed, (item) => item === true, 'the registration after the restart', 30_000);

      const before = events.length;
      await virsh(['resume', name]);
      await arrival(
        events,
        (item) => events.indexOf(item) >= before && about(DomainEventType.Resumed, DomainEventResumedDetail.Unpaused)(item),
        'resumed event after the restart',
      );
    } finally {
      await subscription.close();
      await run.cleanUp();
    }
  });
});
