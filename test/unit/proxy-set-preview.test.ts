// The create form's preview: where a set's members would go now, by the controller's own rules
// (fewest members first, ties to the host with more free memory), creating nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { proxySetCreateSchema } from '@/lib/api/proxyset-spec';
import { previewSet } from '@/server/control/proxy-set-preview';
import { type SetHarness, setHarness, setInput } from '@/test/fakes/proxy-set-fixture';

let h: SetHarness;
afterEach(async () => {
  await h?.close();
});

const preview = (replicas: number) =>
  previewSet({ provider: h.providers.get('fake-1')!, set: proxySetCreateSchema.parse(setInput({ replicas })), health: h.store.health, nowMs: h.nowMs() });

describe('the ProxySet preview', () => {
  it('spreads 3 members 2/1 with the roomier host first, and creates nothing', async () => {
    h = await setHarness({ hosts: { a: 4, b: 8 } });
    expect(await preview(3)).toEqual({
      provider: 'fake-1',
      replicas: 3,
      hosts: [
        { host: 'b', members: 2, eligible: true },
        { host: 'a', members: 1, eligible: true },
      ],
      unplaced: 0,
    });
    expect(h.fake.callsOf('create')).toEqual([]);
    expect(await h.store.proxies.list()).toEqual([]);
  });

  it('says why a host gets nothing, and how many members could not be placed', async () => {
    h = await setHarness({ hosts: { a: 4, b: 8 } });
    h.hosts.get('b')!.reachable = false;
    await h.checkHealth();
    const onlyA = await preview(2);
    expect(onlyA.hosts).toEqual([
      { host: 'a', members: 2, eligible: true },
      { host: 'b', members: 0, eligible: false, reason: expect.stringContaining('not healthy: Unreachable') },
    ]);
    h.hosts.get('a')!.reachable = false;
    await h.checkHealth();
    expect((await preview(2)).unplaced).toBe(2);
  });
});
