// ProxySet records behave the same on SQLite and PostgreSQL: the spec and the controller's status
// each written on its own, the generation bumped by spec changes only, a unique name, removal
// taking the set's events along.
import { describe, expect, it } from 'vitest';
import { proxySetCreateSchema } from '@/lib/api/proxyset-spec';
import { ProxySetExistsError } from '@/server/store/errors';
import { storeEngines, storeEnginesForFile } from '@/test/fakes/store-engines';

const engines = storeEnginesForFile();
const { name: _, ...spec } = proxySetCreateSchema.parse({
  name: 'crawl',
  template: { provider: 'kvm2-home', placement: { machineType: 'small', image: 'debian-13' } },
  replicas: 3,
});
const now = '2026-12-01T10:00:00.000Z';

describe.each(storeEngines)('proxy-set records on %s', (engine) => {
  it('keep a set with its spec and status, bump the generation on spec changes, refuse a second one of the same name', async () => {
    const store = await engines.open(engine);
    const created = await store.proxySets.insert({ uid: 's1', name: 'crawl', spec, now });
    expect(created).toMatchObject({
      uid: 's1',
      name: 'crawl',
      spec,
      generation: 1,
      status: { conditions: [], replacements: [], displaced: [], hostsDown: {} },
    });
    await expect(store.proxySets.insert({ uid: 's2', name: 'crawl', spec, now })).rejects.toThrow(ProxySetExistsError);
    expect(await store.proxySets.updateSpec({ uid: 's1', spec: { ...spec, replicas: 5 }, now })).toBe(true);
    const status = {
      conditions: [{ type: 'Available' as const, status: 'True' as const, reason: 'EnoughReady', message: '5 of 5 Ready', lastTransitionTime: now }],
      replacements: [{ member: 'crawl-abcde', at: now, cause: 'NotReady' as const, firstFailure: 'cloud-init' }],
      displaced: ['crawl-fghij'],
      hostsDown: { lab2: now },
      exhaustedGeneration: 2,
      observedGeneration: 2,
    };
    expect(await store.proxySets.writeStatus('s1', status)).toBe(true);
    expect(await store.proxySets.requestDeletion({ uid: 's1', now })).toBe(true);
    expect(await store.proxySets.get('crawl')).toMatchObject({ generation: 2, spec: { replicas: 5 }, status, deletionRequestedAt: now });
    expect(await store.proxySets.writeStatus('nobody', status)).toBe(false);
  });

  it('remove a set with its events', async () => {
    const store = await engines.open(engine);
    await store.proxySets.insert({ uid: 's1', name: 'crawl', spec, now });
    await store.events.record('s1', { type: 'Normal', reason: 'Created', message: 'set created', atMs: 1 });
    await store.proxySets.remove('s1');
    expect(await store.proxySets.list()).toEqual([]);
    expect(await store.events.list('s1')).toEqual([]);
  });
});
