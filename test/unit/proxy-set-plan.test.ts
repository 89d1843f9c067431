// What an edit of a set does, said before it is saved: nothing, settings only, labels (relabelled
// in place), or the template (N members replaced, rolling); the plan changes nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { type SetHarness, setHarness, setInput, setTemplate } from '@/test/fakes/proxy-set-fixture';

let h: SetHarness;
afterEach(async () => {
  await h?.close();
});

describe('the plan of a ProxySet edit', () => {
  it.each([
    [
      'the same set again (cloud-init left out: kept)',
      { template: { provider: 'fake-1', placement: setTemplate.placement }, replicas: 3 },
      { change: 'none', replaced: 0 },
    ],
    ['more replicas', { template: setTemplate, replicas: 5 }, { change: 'settings', replaced: 0, message: expect.stringContaining('replicas 3 → 5') }],
    [
      'new labels',
      { template: { ...setTemplate, labels: { pool: 'eu' } }, replicas: 3 },
      { change: 'labels', replaced: 0, message: expect.stringContaining('relabelled in place') },
    ],
    [
      'new cloud-init',
      { template: { ...setTemplate, cloudInit: '#cloud-config\npackages: [squid]\n' }, replicas: 3 },
      { change: 'template', replaced: 3, message: expect.stringContaining('3 members replaced, rolling (at most 1 new at a time, never fewer than 3 Ready)') },
    ],
    ['another port', { template: { ...setTemplate, port: 8080 }, replicas: 3 }, { change: 'template', replaced: 3 }],
  ])('%s', async (_, body, expected) => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput());
    await h.pass();
    const before = JSON.stringify(await h.store.proxySets.get('crawl'));
    expect(await h.sets.plan('crawl', body)).toEqual(expect.objectContaining(expected));
    expect(JSON.stringify(await h.store.proxySets.get('crawl'))).toBe(before);
  });
});
