// A template change rolls the members make-before-break over the real Proxy service and
// reconciler: one new member at a time (maxSurge 1), an old one deleted only once its successor is
// Ready, the Ready count never under replicas; pause holds it, resume continues; a labels-only
// change relabels in place.
import { afterEach, describe, expect, it } from 'vitest';
import { memberTemplateHash, templateHash } from '@/server/control/proxy-set-members';
import { type SetHarness, setHarness, setInput, setTemplate } from '@/test/fakes/proxy-set-fixture';

let h: SetHarness;
afterEach(async () => {
  await h?.close();
});

const live = async () => (await h.members('crawl')).filter((member) => !member.deletionRequestedAt);
const readyCount = async () => (await h.sets.get('crawl')).status.ready;

describe('a ProxySet rolling change', () => {
  it('replaces every member one at a time and never has fewer than replicas Ready', async () => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput({ replicas: 2 }));
    await h.pass();
    for (const member of await live()) await h.markReady(member.name);
    const original = new Set((await live()).map((member) => member.name));
    await h.sets.update('crawl', { template: { ...setTemplate, cloudInit: '#cloud-config\npackages: [squid]\n' }, replicas: 2 });
    const newHash = templateHash('crawl', (await h.store.proxySets.get('crawl'))!.spec.template);
    const readySeen: number[] = [];
    const totals: number[] = [];
    let booting = new Set<string>();
    for (let round = 0; round < 12; round++) {
      await h.pass();
      totals.push((await live()).length);
      readySeen.push(await readyCount());
      // A new member stays not Ready through one pass (booting), then answers its probe.
      for (const name of booting) await h.markReady(name);
      readySeen.push(await readyCount());
      booting = new Set(
        (await live())
          .filter((member) => memberTemplateHash(member.spec) === newHash && !booting.has(member.name) && member.probe === undefined)
          .map((member) => member.name),
      );
    }
    const members = await live();
    expect(members.every((member) => memberTemplateHash(member.spec) === newHash && !original.has(member.name))).toBe(true);
    expect(members).toHaveLength(2);
    expect(Math.min(...readySeen)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...totals), 'at most replicas + maxSurge members').toBeLessThanOrEqual(3);
    expect((await h.sets.get('crawl')).status.rollout).toEqual({ state: 'Complete', updated: 2, replicas: 2 });
  });

  it('holds while paused and continues on resume', async () => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput({ replicas: 2 }));
    await h.pass();
    for (const member of await live()) await h.markReady(member.name);
    await h.sets.pause('crawl');
    await h.sets.update('crawl', { template: { ...setTemplate, port: 8080 }, replicas: 2, paused: true });
    await h.pass();
    await h.pass();
    expect(await live()).toHaveLength(2);
    expect((await h.sets.get('crawl')).status.rollout.state).toBe('Paused');
    await h.sets.resume('crawl');
    await h.pass();
    expect(await live()).toHaveLength(3);
    expect((await h.sets.get('crawl')).status.rollout.state).toBe('Progressing');
  });

  it('relabels members in place when only the template labels change', async () => {
    h = await setHarness({ hosts: { a: 4, b: 4 } });
    await h.sets.create(setInput({ replicas: 2 }));
    await h.pass();
    const before = (await live()).map((member) => member.uid).sort();
    await h.sets.update('crawl', { template: { ...setTemplate, labels: { pool: 'eu' } }, replicas: 2 });
    await h.pass();
    const after = await live();
    expect(after.map((member) => member.uid).sort()).toEqual(before);
    expect(after.map((member) => member.spec.labels)).toEqual([
      { pool: 'eu', proxyset: 'crawl' },
      { pool: 'eu', proxyset: 'crawl' },
    ]);
    expect(h.fake.callsOf('create')).toHaveLength(2);
  });
});
