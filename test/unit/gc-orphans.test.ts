import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '@/server/control/clock';
import { OrphanCollector } from '@/server/control/gc';
import { instanceName } from '@/server/control/names';
import { ErrTransient } from '@/server/providers/errors';
import { controlPlane, type Harness, managedProxy, silentLogger } from '@/test/fakes/control-plane';
import { FakeProvider } from '@/test/fakes/fake-provider';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function collector(h: Harness) {
  return new OrphanCollector({ providers: h.providers, store: h.store, clock: systemClock, logger: silentLogger(), intervalMs: 600_000, timeoutMs: 5_000 });
}

const orphan = (name: string, uid: string | undefined) => ({
  providerID: `fake/${name}`,
  name,
  ...(uid === undefined ? {} : { uid }),
  state: 'Running' as const,
  managed: true,
});

describe('orphan GC', () => {
  it('deletes managed instances whose uid matches no Proxy, and nothing else', async () => {
    const one = new FakeProvider({ name: 'fake-1' });
    const two = new FakeProvider({ name: 'fake-2' });
    harness = await controlPlane({ providers: [one, two] });
    const alpha = await harness.proxies.create(managedProxy('alpha'));
    const beta = await harness.proxies.create(managedProxy('beta', { provider: 'fake-2' }));
    await harness.settle();
    // Stopped first, so the deletion stays requested (Deleting) rather than done.
    await harness.pause();
    await harness.proxies.delete('beta');

    one.put(orphan('gone-proxy', 'uid-of-a-deleted-proxy'));
    one.put(orphan('no-uid', undefined));
    one.put(orphan('empty-uid', ''));
    // Its owner lives on the other provider: still attributable to a Proxy, so spared.
    one.put(orphan('beta-elsewhere', beta.uid));
    // Made by another tool: not managed, never listed.
    one.put({ ...orphan('foreign', 'whatever'), managed: false });

    const reports = await collector(harness).sweep();
    expect(reports.find((report) => report.provider === 'fake-1')).toMatchObject({
      deleted: ['fake/gone-proxy'],
      unattributable: ['fake/no-uid', 'fake/empty-uid'],
      failed: [],
    });
    expect([...one.instances.keys()].sort()).toEqual(
      ['fake/beta-elsewhere', 'fake/empty-uid', 'fake/foreign', `fake/${instanceName('alpha')}`, 'fake/no-uid'].sort(),
    );
    // beta is Deleting, not gone: its own instance stays for the reconciler to delete.
    expect(two.instances.has(`fake/${instanceName('beta')}`)).toBe(true);
    expect(alpha.uid).toBeDefined();
  });

  it('skips a provider whose listing fails, whole, and still sweeps the others', async () => {
    const one = new FakeProvider({ name: 'fake-1' }).failNext('listByTag', new ErrTransient('host unreachable'));
    const two = new FakeProvider({ name: 'fake-2' });
    harness = await controlPlane({ providers: [one, two] });
    one.put(orphan('orphan-one', 'nobody-1'));
    two.put(orphan('orphan-two', 'nobody-2'));

    const reports = await collector(harness).sweep();
    expect(reports[0]).toMatchObject({ provider: 'fake-1', skipped: 'host unreachable', deleted: [] });
    expect(reports[1]).toMatchObject({ provider: 'fake-2', deleted: ['fake/orphan-two'] });
    expect(one.callsOf('delete')).toEqual([]);
    expect(one.instances.has('fake/orphan-one')).toBe(true);
  });

  it('goes on after one delete fails, and reports it', async () => {
    const one = new FakeProvider({ name: 'fake-1' }).failNext('delete', new ErrTransient('busy'));
    harness = await controlPlane({ providers: [one] });
    one.put(orphan('first', 'nobody-1'));
    one.put(orphan('second', 'nobody-2'));
    const [report] = await collector(harness).sweep();
    expect(report?.failed).toEqual([{ providerID: 'fake/first', error: 'busy' }]);
    expect(report?.deleted).toEqual(['fake/second']);
  });

  it('reads the Proxies after listing, so a Proxy created during the listing keeps its instance', async () => {
    const one = new FakeProvider({ name: 'fake-1' });
    harness = await controlPlane({ providers: [one] });
    await harness.pause();
    const realList = one.listByTag.bind(one);
    one.listByTag = async (tag, options) => {
      const listed = await realList(tag, options);
      // Between the listing and the comparison a Proxy appears whose instance the listing saw.
      const { uid } = await harness!.proxies.create(managedProxy('late'));
      return [...listed, { providerID: 'fake/late', name: 'late', uid, state: 'Provisioning' }];
    };
    const [report] = await collector(harness).sweep();
    expect(report?.deleted).toEqual([]);
    expect(one.callsOf('delete')).toEqual([]);
  });
});
