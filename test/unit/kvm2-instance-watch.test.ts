// kvm2's watchInstances: a domain lifecycle event on any configured host is reported as a change
// of `hosts/<host>/domains/<domain>` with the event in words; a name no providerID can hold is not
// reported; a re-registration after a lost connection is reported as missed; stop ends it all.
// Each change carries the domain's state after it (what the host page's row shows), at the cost of
// one domain read at most: Suspended and Resumed say it themselves, Undefined means gone, any other
// event is followed by one DomainGetState; a host's changes are reported in the order they came.
import { describe, expect, it } from 'vitest';
import { DomainEventType, DomainState } from '@/server/libvirt';
import type { InstanceChange } from '@/server/providers/contract';
import { lifecycleEventName } from '@/server/providers/kvm2/instance-watch';
import { createKvm2Provider } from '@/server/providers/kvm2/provider';
import { createLogger } from '@/server/telemetry/logger';
import { FakeHostBackend } from '@/test/fakes/fake-host-backend';
import { FakeHypervisor } from '@/test/fakes/fake-libvirt';
import { kvm2Settings } from '@/test/fakes/kvm2-settings';

const logger = createLogger({ level: 'silent' });

function setup() {
  const h1 = new FakeHypervisor();
  const h2 = new FakeHypervisor();
  h1.addDomain({ name: 'proxy-0123456789abcdef' });
  h2.addDomain({ name: 'web 1' });
  const backend = new FakeHostBackend({ h1, h2 });
  const hosts = ['h1', 'h2'].map((name) => ({ name, address: `${name}.lan`, user: 'admin', bridge: 'br0' }));
  const provider = createKvm2Provider({ settings: kvm2Settings({ hosts }), backend, logger });
  const changes: InstanceChange[] = [];
  const missed: string[] = [];
  const watch = provider.watchInstances({ changed: (change) => changes.push(change), missed: (target) => missed.push(target) });
  const registered = () =>
    expect
      .poll(() => ['h1', 'h2'].every((host) => (backend.pooledConnection(host)?.subscriptionCount ?? 0) > 0), {
        message: 'both hosts registered',
        timeout: 2_000,
        interval: 2,
      })
      .toBe(true);
  return { h1, h2, backend, provider, changes, missed, watch, registered };
}

describe('kvm2 instance watch', () => {
  it('reports a lifecycle event on any host as a change of that host’s instance', async () => {
    const { h1, h2, changes, watch, registered, provider } = setup();
    await registered();
    h1.emitDomainLifecycle('proxy-0123456789abcdef', DomainEventType.Stopped, 1);
    h2.addDomain({ name: 'proxy-fedcba9876543210' });
    h2.emitDomainLifecycle('proxy-fedcba9876543210', DomainEventType.Suspended);
    await expect.poll(() => changes.length, { timeout: 2_000, interval: 2 }).toBe(2);
    expect(changes).toEqual(
      expect.arrayContaining([
        {
          providerID: 'hosts/h1/domains/proxy-0123456789abcdef',
          name: 'proxy-0123456789abcdef',
          target: 'h1',
          event: 'Stopped/Destroyed',
          state: 'shut off',
        },
        {
          providerID: 'hosts/h2/domains/proxy-fedcba9876543210',
          name: 'proxy-fedcba9876543210',
          target: 'h2',
          event: 'Suspended/Paused',
          state: 'paused',
        },
      ]),
    );
    await watch.stop();
    await provider.close();
  });

  it('does not report a domain whose name no providerID can hold', async () => {
    const { h1, h2, changes, watch, registered, provider } = setup();
    await registered();
    h2.emitDomainLifecycle('web 1', DomainEventType.Crashed);
    h2.emitDomainLifecycle('web 1', DomainEventType.Stopped, 1);
    expect(changes).toEqual([]);
    h1.emitDomainLifecycle('proxy-0123456789abcdef', DomainEventType.Crashed);
    await expect.poll(() => changes.map((change) => change.name), { timeout: 2_000, interval: 2 }).toEqual(['proxy-0123456789abcdef']);
    await watch.stop();
    await provider.close();
  });

  it('reports missed changes when a host’s registration is made again after a lost connection', async () => {
    const { backend, missed, watch, registered, provider } = setup();
    await registered();
    expect(missed).toEqual([]);
    backend.pooledConnection('h2')?.kill('libvirtd restarted');
    await expect.poll(() => missed, { message: 'the re-registration', timeout: 2_000, interval: 2 }).toEqual(['h2']);
    await watch.stop();
    await provider.close();
  });

  it('stop deregisters on every host: later events are not reported', async () => {
    const { h1, backend, changes, watch, registered, provider } = setup();
    await registered();
    await watch.stop();
    expect(backend.pooledConnection('h1')?.subscriptionCount).toBe(0);
    expect(backend.pooledConnection('h2')?.subscriptionCount).toBe(0);
    h1.emitDomainLifecycle('proxy-0123456789abcdef', DomainEventType.Stopped, 1);
    expect(changes).toEqual([]);
    await provider.close();
  });

  it('carries the state after each change with one domain read at most: none for Suspended, Resumed and Undefined', async () => {
    const { h1, changes, watch, registered, provider } = setup();
    await registered();
    const domain = 'proxy-0123456789abcdef';
    const reads = () => h1.count('domainGetState');
    h1.emitDomainLifecycle(domain, DomainEventType.Suspended, 0);
    h1.emitDomainLifecycle(domain, DomainEventType.Resumed, 0);
    await expect.poll(() => changes.length, { timeout: 2_000, interval: 2 }).toBe(2);
    expect(reads()).toBe(0);
    h1.domains.get(domain)!.state = DomainState.Crashed;
    h1.emitDomainLifecycle(domain, DomainEventType.Stopped, 2);
    await expect.poll(() => changes.length, { timeout: 2_000, interval: 2 }).toBe(3);
    expect(reads()).toBe(1);
    h1.emitDomainLifecycle(domain, DomainEventType.Undefined, 0);
    await expect.poll(() => changes.length, { timeout: 2_000, interval: 2 }).toBe(4);
    expect(reads()).toBe(1);
    expect(changes.map(({ event, state, removed }) => ({ event, state, removed }))).toEqual([
      { event: 'Suspended/Paused', state: 'paused', removed: undefined },
      { event: 'Resumed/Unpaused', state: 'running', removed: undefined },
      { event: 'Stopped/Crashed', state: 'crashed', removed: undefined },
      { event: 'Undefined', state: undefined, removed: true },
    ]);
    await watch.stop();
    await provider.close();
  });

  it('reports a host’s changes in the order they came while a state read holds the first', async () => {
    const { h1, changes, watch, registered, provider } = setup();
    await registered();
    const domain = 'proxy-0123456789abcdef';
    const read = h1.gate('domainGetState', domain);
    h1.emitDomainLifecycle(domain, DomainEventType.Started, 0);
    await read.arrived;
    h1.emitDomainLifecycle(domain, DomainEventType.Suspended, 0);
    expect(changes).toEqual([]);
    read.release();
    await expect.poll(() => changes.map((change) => change.event), { timeout: 2_000, interval: 2 }).toEqual(['Started/Booted', 'Suspended/Paused']);
    await watch.stop();
    await provider.close();
  });

  it('keeps reporting a host’s changes after the watcher threw on one', async () => {
    const h1 = new FakeHypervisor();
    h1.addDomain({ name: 'proxy-0123456789abcdef' });
    const backend = new FakeHostBackend({ h1 });
    const hosts = [{ name: 'h1', address: 'h1.lan', user: 'admin', bridge: 'br0' }];
    const provider = createKvm2Provider({ settings: kvm2Settings({ hosts }), backend, logger });
    const seen: string[] = [];
    const watch = provider.watchInstances({
      changed: (change) => {
        seen.push(change.event);
        if (seen.length === 1) throw new Error('watcher failed');
      },
    });
    await expect.poll(() => backend.pooledConnection('h1')?.subscriptionCount ?? 0, { timeout: 2_000, interval: 2 }).toBeGreaterThan(0);
    h1.emitDomainLifecycle('proxy-0123456789abcdef', DomainEventType.Suspended, 0);
    h1.emitDomainLifecycle('proxy-0123456789abcdef', DomainEventType.Resumed, 0);
    await expect.poll(() => seen, { timeout: 2_000, interval: 2 }).toEqual(['Suspended/Paused', 'Resumed/Unpaused']);
    await watch.stop();
    await provider.close();
  });

  it('reports the change without a state when the read fails (the domain went meanwhile)', async () => {
    const { h1, changes, watch, registered, provider } = setup();
    await registered();
    h1.emitDomainLifecycle('proxy-0123456789abcdef', DomainEventType.Started, 0);
    h1.domains.delete('proxy-0123456789abcdef');
    await expect.poll(() => changes.length, { timeout: 2_000, interval: 2 }).toBe(1);
    expect(changes[0]).not.toHaveProperty('state');
    await watch.stop();
    await provider.close();
  });

  it.each([
    [DomainEventType.Stopped, 2, 'Stopped/Crashed'],
    [DomainEventType.Resumed, 0, 'Resumed/Unpaused'],
    [DomainEventType.Started, 0, 'Started/Booted'],
    [DomainEventType.Undefined, 0, 'Undefined'],
    [DomainEventType.Crashed, 0, 'Crashed'],
    [DomainEventType.Stopped, 99, 'Stopped/99'],
    [42, 0, 'Event42'],
  ])('names event %i detail %i as %s', (event, detail, name) => {
    expect(lifecycleEventName({ event, detail })).toBe(name);
  });
});
