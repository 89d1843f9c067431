// The proxy-set controller over the real Proxy service, reconciler and store, on a fake provider
// with hosts: members made, spread, owned, replaced within the budget, moved off a host that stays
// down and removed when it is back, scaled, deleted with the set; a pass with nothing to do writes
// nothing.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProxySetController } from '@/server/control/proxy-set-controller';
import { ProxyOwnedError } from '@/server/control/proxy-set-errors';
import type { HostCapacityReader } from '@/server/providers/host-capacity';
import { silentLogger } from '@/test/fakes/control-plane';
import { type SetHarness, setHarness, setInput, spreadOf } from '@/test/fakes/proxy-set-fixture';

const minute = 60_000;
let h: SetHarness;
afterEach(async () => {
  await h?.close();
});

const live = async (set = 'crawl') => (await h.members(set)).filter((member) => !member.deletionRequestedAt);
async function allReady(set = 'crawl') {
  for (const member of await live(set)) await h.markReady(member.name);
}

describe('the proxy-set controller', () => {
  it('makes a set of 3 over two hosts land 2/1, the roomier host first, members named <set>-<suffix> and labelled', async () => {
    h = await setHarness({ hosts: { a: 4, b: 8 } });
    await h.sets.create(setInput());
    await h.pass();
    const members = await live();
    expect(members.map((member) => member.name)).toEqual(members.map(() => expect.stringMatching(/^crawl-[a-z0-9]{5}$/)));
    expect(spreadOf(members)).toEqual({ b: 2, a: 1 });
    expect(members.every((member) => member.spec.labels.proxyset === 'crawl' && member.status.phase === 'Running')).toBe(true);
    const set = await h.sets.get('crawl');
    expect(set.status).toMatchObject({
      members: 3,
      ready: 0,
      updated: 3,
      hosts: [
        { host: 'a', members: 1 },
        { host: 'b', members: 2 },
      ],
    });
    expect((await h.sets.events('crawl')).filter((event) => event.reason === 'MemberCreated')).toHaveLength(3);
    expect((await h.proxies.events(members[0]!.name)).map((event) => event.reason)).toContain('CreatedBySet');
  });

  it('keeps members from being deleted or edited on their own; replace makes a new one', async () => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput({ replicas: 2 }));
    await h.pass();
    const [first] = await live();
    await expect(h.proxies.delete(first!.name)).rejects.toThrow(ProxyOwnedError);
    await expect(h.proxies.delete(first!.name)).rejects.toThrow(/scale the set down, replace the member/);
    await expect(
      h.proxies.create({ name: 'sneaky', mode: 'Managed', provider: 'fake-1', placement: { machineType: 'small', image: 'x' }, labels: { proxyset: 'crawl' } }),
    ).rejects.toThrow(/labels.proxyset/);
    await h.sets.replace('crawl', { members: [first!.name] });
    await h.pass();
    const after = await live();
    expect(after).toHaveLength(2);
    expect(after.map((member) => member.name)).not.toContain(first!.name);
  });

  it('scales 1 → 3 → 1 → 2, keeping the oldest (the newest go first), and deleting the set deletes its members, then itself', async () => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput({ replicas: 1 }));
    await h.pass();
    const [first] = await live();
    h.advance(minute);
    await h.sets.scale('crawl', { replicas: 3 });
    await h.pass();
    await allReady();
    h.advance(minute);
    await h.sets.scale('crawl', { replicas: 1 });
    await h.pass();
    expect((await live()).map((member) => member.name)).toEqual([first!.name]);
    await h.sets.scale('crawl', { replicas: 2 });
    await h.pass();
    expect(await live()).toHaveLength(2);
    await h.sets.delete('crawl');
    expect(await live()).toEqual([]);
    await h.pass();
    await h.pass();
    expect(await h.members('crawl')).toEqual([]);
    expect(await h.store.proxySets.list()).toEqual([]);
  });

  it('a template whose members never become Ready replaces at most the budget, then stops with ReplacementsExhausted until the admin resumes', async () => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput({ replicas: 2, readyTimeout: '1m' }));
    const creates = () => h.fake.callsOf('create').length;
    for (let i = 0; i < 30; i++) {
      await h.pass();
      h.advance(2 * minute);
    }
    // 2 members, then 2 replacements (the default budget: replicas per 30 min), then nothing.
    expect(creates()).toBe(4);
    const set = await h.sets.get('crawl');
    expect(set.status.conditions.find((condition) => condition.type === 'ReplacementsExhausted')).toMatchObject({
      status: 'True',
      message: expect.stringContaining('first failure: cloud-init'),
    });
    expect(set.status.replacements.map((replacement) => replacement.firstFailure)).toEqual(['cloud-init', 'cloud-init']);
    await h.sets.resume('crawl');
    await h.pass();
    expect(creates()).toBeGreaterThan(4);
  });

  it('diagnoses only as many failing members as the budget lets it replace', async () => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput({ replicas: 5, readyTimeout: '1m', replacementBudget: { max: 1 } }));
    await h.pass();
    h.advance(2 * minute);
    await h.pass();
    expect(h.diagnosis.calls).toBe(1);
    expect((await h.sets.get('crawl')).status.replacements).toHaveLength(1);
  });

  it('moves the members of a host down longer than the grace, ignores a shorter blip, and removes the old ones once it is back', async () => {
    h = await setHarness({ hosts: { a: 8, b: 4, c: 2 } });
    await h.sets.create(setInput({ replicas: 2 }));
    await h.pass();
    await allReady();
    expect(spreadOf(await live())).toEqual({ a: 1, b: 1 });
    h.hosts.get('a')!.reachable = false;
    await h.checkHealth();
    await h.pass();
    h.advance(4 * minute);
    await h.pass();
    expect(spreadOf(await live()), 'a 4-minute blip changes nothing').toEqual({ a: 1, b: 1 });
    h.advance(2 * minute);
    await h.pass();
    expect(spreadOf(await live())).toEqual({ a: 1, b: 1, c: 1 });
    await allReady();
    h.hosts.get('a')!.reachable = true;
    await h.checkHealth();
    await h.pass();
    expect(spreadOf(await live())).toEqual({ b: 1, c: 1 });
  });

  it('looks again a second after a member is written (one pass for a burst), not for other Proxies', async () => {
    h = await setHarness({ hosts: { a: 4 } });
    const timers: Array<{ callback: () => void; delayMs: number }> = [];
    const clock = {
      now: () => h.nowMs(),
      setTimeout: (callback: () => void, delayMs: number) => timers.push({ callback, delayMs }),
      clearTimeout: () => undefined,
    };
    const controller = new ProxySetController({
      store: h.store,
      proxies: h.proxies,
      providers: h.providers,
      clock,
      logger: silentLogger(),
      intervalMs: 60_000,
      diagnose: async () => null,
    });
    const passes = vi.spyOn(controller, 'pass');
    controller.start();
    await vi.waitFor(() => expect(timers.map((timer) => timer.delayMs)).toEqual([60_000]));
    controller.proxyChanged('alpha');
    expect(timers, 'a Proxy that is no member wakes nothing').toHaveLength(1);
    controller.proxyChanged('crawl-ab12c');
    controller.proxyChanged('crawl-xy34z');
    expect(timers.map((timer) => timer.delayMs)).toEqual([60_000, 1_000]);
    const before = passes.mock.calls.length;
    timers[1]!.callback();
    await vi.waitFor(() => expect(passes.mock.calls.length).toBe(before + 1));
    await controller.stop();
  });

  it('a pass with nothing to do writes nothing and measures no host', async () => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput());
    await h.pass();
    await allReady();
    await h.pass();
    const writeStatus = vi.spyOn(h.store.proxySets, 'writeStatus');
    const measure = vi.spyOn((h.fake as unknown as { capacity: HostCapacityReader }).capacity, 'measure');
    const creates = h.fake.callsOf('create').length;
    await h.controller.pass();
    expect(writeStatus).not.toHaveBeenCalled();
    expect(measure).not.toHaveBeenCalled();
    expect(h.fake.callsOf('create')).toHaveLength(creates);
    expect(await h.metricsText()).toContain('proxy_operator_proxyset_replicas{set="crawl",state="ready"} 3');
  });
});
