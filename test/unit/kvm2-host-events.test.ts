// Host event subscriptions keep flowing across redials: registered on the pooled connection,
// registered again on the next one after that connection dies (libvirtd forgets callbacks with
// their connection), retried with backoff while the host is unreachable, and gone after close.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DomainEventType, StoragePoolEventType, type DomainLifecycleEvent } from '@/server/libvirt';
import { errorClassOf } from '@/server/providers/errors';
import { subscribeHostEvents, type HostEventHandlers } from '@/server/providers/kvm2/host-events';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { createLogger } from '@/server/telemetry/logger';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';
import { nextTurn } from '@/test/support/wait';

const logger = createLogger({ level: 'silent' });

function setup(extra: Partial<HostEventHandlers> = {}) {
  const hypervisor = new FakeHypervisor();
  hypervisor.addDomain({ name: 'web-1' });
  const backend = new FakeHostBackend({ h1: hypervisor });
  const events: DomainLifecycleEvent[] = [];
  const subscribed: boolean[] = [];
  const lost: Error[] = [];
  const subscription = subscribeHostEvents({
    backend,
    host: 'h1',
    logger,
    retryMs: 5,
    maxRetryMs: 20,
    handlers: {
      onDomainLifecycle: (event) => events.push(event),
      onSubscribed: ({ resubscribed }) => subscribed.push(resubscribed),
      onLost: ({ error }) => lost.push(error),
      ...extra,
    },
  });
  return { hypervisor, backend, events, subscribed, lost, subscription };
}

const eventsOf = (events: DomainLifecycleEvent[]) => events.map((event) => `${event.dom.name}:${event.event}:${event.detail}`);

describe('host event subscriptions', () => {
  it('delivers lifecycle events from the pooled connection', async () => {
    const { hypervisor, events, subscribed, subscription } = setup();
    await expect.poll(() => subscribed.length === 1, { message: 'the first registration', timeout: 2_000, interval: 2 }).toBe(true);
    expect(subscribed).toEqual([false]);
    hypervisor.emitDomainLifecycle('web-1', DomainEventType.Suspended);
    hypervisor.emitDomainLifecycle('web-1', DomainEventType.Stopped, 1);
    expect(eventsOf(events)).toEqual(['web-1:3:0', 'web-1:5:1']);
    await subscription.close();
  });

  it('registers again on the next connection after the pooled one dies, and events flow again', async () => {
    const { hypervisor, backend, events, subscribed, lost, subscription } = setup();
    await expect.poll(() => subscribed.length === 1, { message: 'the first registration', timeout: 2_000, interval: 2 }).toBe(true);
    backend.pooledConnection('h1')?.kill('libvirtd restarted');
    hypervisor.emitDomainLifecycle('web-1', DomainEventType.Started); // nobody registered: lost, as on a real host
    await expect.poll(() => subscribed.length === 2, { message: 'the registration on the redialled connection', timeout: 2_000, interval: 2 }).toBe(true);
    expect(subscribed).toEqual([false, true]);
    expect(lost.map((error) => error.message)).toEqual(['libvirt connection killed: libvirtd restarted']);
    expect(backend.pooledDials).toBe(2);
    hypervisor.emitDomainLifecycle('web-1', DomainEventType.Resumed);
    expect(eventsOf(events)).toEqual(['web-1:4:0']);
    await subscription.close();
  });

  it('keeps retrying, with backoff, while the host is unreachable, then subscribes', async () => {
    const hypervisor = new FakeHypervisor();
    const backend = new FakeHostBackend({ h1: hypervisor });
    backend.unreachable.add('h1');
    const dial = backend.pooled.bind(backend);
    let attempts = 0;
    backend.pooled = async (host: string) => {
      attempts += 1;
      return dial(host);
    };
    const subscribed: boolean[] = [];
    const subscription = subscribeHostEvents({
      backend,
      host: 'h1',
      logger,
      retryMs: 5,
      maxRetryMs: 10,
      handlers: { onDomainLifecycle: () => undefined, onSubscribed: ({ resubscribed }) => subscribed.push(resubscribed) },
    });
    await expect.poll(() => attempts, { message: 'three dials while unreachable', timeout: 2_000, interval: 2 }).toBeGreaterThanOrEqual(3);
    expect(subscribed).toEqual([]);
    backend.unreachable.delete('h1');
    await expect.poll(() => subscribed.length === 1, { message: 'the registration once reachable', timeout: 2_000, interval: 2 }).toBe(true);
    await subscription.close();
  });

  it('leaves no abort listener behind per retry while the host stays unreachable', async () => {
    const backend = new FakeHostBackend({ h1: new FakeHypervisor() });
    backend.unreachable.add('h1');
    const dial = backend.pooled.bind(backend);
    let stopSignal: AbortSignal | undefined;
    let attempts = 0;
    backend.pooled = async (host: string, options?: { signal?: AbortSignal }) => {
      stopSignal = options?.signal;
      attempts += 1;
      return dial(host);
    };
    const subscription = subscribeHostEvents({ backend, host: 'h1', logger, retryMs: 1, maxRetryMs: 1, handlers: { onDomainLifecycle: () => undefined } });
    await expect.poll(() => attempts >= 30, { message: '30 attempts', timeout: 5_000, interval: 2 }).toBe(true);
    // One at most: the pause under way. Before the fix every pause left its listener (30 here).
    expect(getEventListeners(stopSignal!, 'abort').length).toBeLessThanOrEqual(1);
    await subscription.close();
  });

  it('registers the storage pool lifecycle and refresh events it has handlers for', async () => {
    const pools: string[] = [];
    const { hypervisor, subscribed, subscription } = setup({
      onStoragePoolLifecycle: ({ pool, event }) => pools.push(`${pool.name}:${event}`),
      onStoragePoolRefresh: ({ pool }) => pools.push(`${pool.name}:refresh`),
    });
    await expect.poll(() => subscribed.length === 1, { message: 'the registrations', timeout: 2_000, interval: 2 }).toBe(true);
    expect(hypervisor.count('connectStoragePoolEventLifecycleRegister')).toBe(1);
    expect(hypervisor.count('connectStoragePoolEventRefreshRegister')).toBe(1);
    hypervisor.emitPoolLifecycle('default', StoragePoolEventType.Stopped);
    hypervisor.emitPoolRefresh('default');
    expect(pools).toEqual([`default:${StoragePoolEventType.Stopped}`, 'default:refresh']);
    await subscription.close();
  });

  it('a registration that fails undoes the others and is retried as a whole', async () => {
    const { hypervisor, backend, subscribed, subscription } = setup({ onStoragePoolRefresh: () => undefined });
    hypervisor.failOnce('connectStoragePoolEventRefreshRegister', 'ErrInternalError');
    await expect.poll(() => subscribed.length === 1, { message: 'the retried registration', timeout: 2_000, interval: 2 }).toBe(true);
    expect(hypervisor.count('connectDomainEventLifecycleRegister')).toBe(2);
    expect(backend.pooledConnection('h1')?.subscriptionCount).toBe(2);
    await subscription.close();
  });

  it('refuses a subscription with no event handler (it would wait on nothing)', () => {
    const backend = new FakeHostBackend({ h1: new FakeHypervisor() });
    expect(() => subscribeHostEvents({ backend, host: 'h1', logger, handlers: { onSubscribed: () => undefined } })).toThrow(/at least one event handler/);
  });

  it('close() deregisters and stops: no events, no re-registration', async () => {
    const { hypervisor, backend, events, subscribed, subscription } = setup();
    await expect.poll(() => subscribed.length === 1, { message: 'the first registration', timeout: 2_000, interval: 2 }).toBe(true);
    await subscription.close();
    expect(backend.pooledConnection('h1')?.subscriptionCount).toBe(0);
    hypervisor.emitDomainLifecycle('web-1', DomainEventType.Started);
    backend.pooledConnection('h1')?.kill('gone');
    // A loop still running would redial at once, over the in-memory fake: within one turn.
    await nextTurn();
    expect(events).toEqual([]);
    expect(subscribed).toEqual([false]);
  });

  it('through the provider: only for a configured host, and closing the provider stops it from redialling', async () => {
    const hypervisor = new FakeHypervisor();
    hypervisor.addDomain({ name: 'web-1' });
    const backend = new FakeHostBackend({ h1: hypervisor });
    const settings = kvm2Settings({ hosts: [{ name: 'h1', address: 'h1.lan', user: 'admin', bridge: 'br0' }] });
    const provider = createKvm2Provider({ settings, backend, logger });
    const refused = (() => {
      try {
        provider.subscribeHostEvents('nowhere', {});
      } catch (err) {
        return err;
      }
    })();
    expect(errorClassOf(refused)).toBe('permanent');
    const subscribed: boolean[] = [];
    provider.subscribeHostEvents('h1', { onDomainLifecycle: () => undefined, onSubscribed: ({ resubscribed }) => subscribed.push(resubscribed) });
    await expect.poll(() => subscribed.length === 1, { message: 'the registration', timeout: 2_000, interval: 2 }).toBe(true);
    await provider.close();
    await nextTurn();
    expect(backend.pooledDials).toBe(1);
    expect(subscribed).toEqual([false]);
  });
});
