// What the control plane puts on the live feed: a Proxy's new view after any write to its record
// (one message per turn however many writes, none when the view did not change, null once removed),
// each instance change with its owning Proxy, and each provider check as stored.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type LiveChange, liveMessageSchema } from '@/lib/api/live';
import { InstanceEvents } from '@/server/control/instance-events';
import { LiveFeed } from '@/server/control/live-feed';
import { publishHealth, publishInstanceChange, publishProxyWrites } from '@/server/control/live-publishers';
import { Monitor } from '@/server/control/monitor';
import { instanceName } from '@/server/control/names';
import { systemClock } from '@/server/control/clock';
import { controlPlane, type Harness, managedProxy, silentLogger } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';
import { nextTurn } from '@/test/support/wait';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function setup() {
  const provider = new FakeProvider({ name: 'fake-1' });
  harness = await controlPlane({ providers: [provider] });
  const feed = new LiveFeed();
  const messages: LiveChange[] = [];
  feed.subscribe({ event: (event) => messages.push(event.message), closed: () => undefined }, { owner: 'test', limit: 1 });
  return { provider, harness, feed, messages };
}

describe('live publishers', () => {
  it('publishes a Proxy once per turn with its latest view, nothing for a write that changes no view, and null once removed', async () => {
    const { harness, feed, messages } = await setup();
    const stop = publishProxyWrites({ store: harness.store, feed });
    await harness.pause();
    // Two writes in one turn (one transaction), one message.
    await harness.store.transaction(async (tx) => {
      await tx.proxies.insert({
        uid: 'u-static',
        name: 'static',
        spec: { mode: 'Static', address: '192.0.2.10', port: 3128, labels: {} },
        now: new Date().toISOString(),
      });
      await tx.proxies.writeStatus('u-static', { phase: 'Running', ip: '192.0.2.10', conditions: [] });
    });
    await nextTurn();
    expect(messages).toEqual([
      { kind: 'proxy', name: 'static', proxy: expect.objectContaining({ name: 'static', status: expect.objectContaining({ ip: '192.0.2.10' }) }) },
    ]);
    const record = (await harness.store.proxies.get('static'))!;
    await harness.store.proxies.writeStatus(record.uid, { ...record.status });
    await nextTurn();
    expect(messages).toHaveLength(1);
    await harness.store.proxies.remove(record.uid);
    await nextTurn();
    expect(messages.at(-1)).toEqual({ kind: 'proxy', name: 'static', proxy: null });
    stop();
    await harness.proxies.create({ name: 'later', mode: 'Static', address: '192.0.2.11', port: 3128 });
    await nextTurn();
    expect(messages).toHaveLength(2);
  });

  it('publishes every instance change, naming the owning Proxy when there is one', async () => {
    const { provider, harness, feed, messages } = await setup();
    await harness.proxies.create(managedProxy('alpha'));
    await harness.settle();
    const events = new InstanceEvents({
      store: harness.store,
      providers: harness.providers,
      logger: silentLogger(),
      enqueue: () => undefined,
      resyncAll: async () => undefined,
      onChange: (name, change, proxy) => publishInstanceChange({ feed, provider: name, change, proxy }),
    });
    events.start();
    provider.emitChange(instanceName('alpha'), 'Stopped/Destroyed');
    provider.emitChange('web-1', 'Suspended/Paused');
    // The owner is looked up in the store first.
    await vi.waitFor(() => expect(messages.filter((message) => message.kind === 'domain')).toHaveLength(2));
    await events.stop();
    expect(messages.filter((message) => message.kind === 'domain')).toEqual([
      {
        kind: 'domain',
        provider: 'fake-1',
        target: 'host-a',
        name: instanceName('alpha'),
        providerID: `fake/${instanceName('alpha')}`,
        event: 'Stopped/Destroyed',
        proxy: 'alpha',
      },
      { kind: 'domain', provider: 'fake-1', target: 'host-a', name: 'web-1', providerID: 'fake/web-1', event: 'Suspended/Paused' },
    ]);
  });

  it('a domain message carries the instance’s state after the change, or that it is gone', async () => {
    const { provider, feed, messages } = await setup();
    const changes = [
      { providerID: 'fake/web-1', name: 'web-1', target: 'host-a', event: 'Suspended/Paused', state: 'paused' },
      { providerID: 'fake/web-1', name: 'web-1', target: 'host-a', event: 'Undefined', removed: true as const },
    ];
    for (const change of changes) publishInstanceChange({ feed, provider: provider.name, change, proxy: undefined });
    expect(messages.filter((message) => message.kind === 'domain')).toEqual([
      { kind: 'domain', provider: 'fake-1', target: 'host-a', name: 'web-1', providerID: 'fake/web-1', event: 'Suspended/Paused', state: 'paused' },
      { kind: 'domain', provider: 'fake-1', target: 'host-a', name: 'web-1', providerID: 'fake/web-1', event: 'Undefined', removed: true },
    ]);
    for (const message of messages) expect(liveMessageSchema.parse(message)).toEqual(message);
  });

  it('publishes each provider check with the targets as stored', async () => {
    const { harness, feed, messages } = await setup();
    const monitor = new Monitor({
      store: harness.store,
      clock: systemClock,
      providers: harness.providers,
      logger: silentLogger(),
      intervalMs: 60_000,
      timeoutMs: 1_000,
      onChecked: (health) => publishHealth({ store: harness.store, feed, provider: health.provider }),
    });
    await monitor.runOnce();
    expect(messages).toEqual([{ kind: 'health', provider: 'fake-1', targets: (await harness.store.health.latest('fake-1'))[0]!.targets }]);
    expect(messages[0]).toMatchObject({ targets: [expect.objectContaining({ name: 'host-a', ready: true })] });
  });
});
