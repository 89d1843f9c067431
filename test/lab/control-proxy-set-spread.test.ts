// A ProxySet on the lab's two hypervisors, through the runtime (the set controller on the leader):
// a set of 3 lands 2/1 and its hosts bar agrees with root's virsh on each host; a member's domain
// destroyed and undefined behind our back runs again (the member's own reconciler recreates it on
// the same host: the set keeps the same members); scaling 3 -> 1 -> 2 deletes newest first and
// places the new member on the host that has none. The lab's members boot no OS and are never
// Ready, so readyTimeout is an hour here: nothing is replaced for that.
import { describe, expect, it, vi } from 'vitest';
import { instanceName } from '@/server/control/names';
import { virsh } from './harness/lab';
import { domainState } from './control-support';
import { counts, labSet, proxySetSuite, runningByHost, setEvents, setMembers, settled, statusByHost } from './proxy-set-lab-support';

const suite = proxySetSuite({ suffix: 'spread', env: { PROVIDER_CHECK_INTERVAL: '5s' } });

describe('a ProxySet over the two lab hypervisors', () => {
  it('a set of 3 lands 2/1, and its hosts bar agrees with the domains on each host', async () => {
    await suite.runtime.services.proxySets.create(labSet({ name: suite.set, provider: suite.entry, replicas: 3, readyTimeout: '1h' }));
    const byHost = await settled({ ...suite, count: 3 });
    expect(Object.values(counts(byHost)).sort()).toEqual([1, 2]);
    expect(await statusByHost(suite.runtime, suite.set)).toEqual(counts(byHost));
    const { status } = await suite.runtime.services.proxySets.get(suite.set);
    expect(status).toMatchObject({ members: 3, ready: 0, updated: 3, failing: 0 });
    const members = await setMembers(suite.runtime, suite.set);
    expect((await setEvents(suite.runtime, suite.set, 'MemberCreated')).map((event) => event.message).sort()).toEqual(
      members.map((member) => `${member.name} on ${member.placement?.zone}, to reach the set's replicas`).sort(),
    );
    for (const member of members) expect(member.name).toMatch(new RegExp(`^${suite.set}-[a-z0-9]{5}$`));
    // Every member carries the set's label and a zone of the set's choosing; no other domain of the run exists.
    for (const member of await setMembers(suite.runtime, suite.set)) expect(member.labels).toEqual({ proxyset: suite.set });
    expect(suite.run.domains.size).toBe(3);
  });

  it("a member's domain destroyed and undefined behind our back runs again on its host", async () => {
    const [victim] = (await setMembers(suite.runtime, suite.set)).sort((a, b) => a.name.localeCompare(b.name));
    const host = victim?.placement?.zone as string;
    const domain = instanceName(victim?.name as string);
    const before = (await setMembers(suite.runtime, suite.set)).map((member) => member.name).sort();
    const uuid = (await virsh(['domuuid', domain], host)).trim();
    // Undefined first (it runs on, transient), then destroyed: the member never sees it merely stopped.
    await virsh(['undefine', '--nvram', domain], host);
    await virsh(['destroy', domain], host);
    // The member may already be making it again (its instance watch hears the domain go): a domain
    // of the same name is a new one when its UUID differs.

    await vi.waitFor(
      async () =>
        expect(
          (await suite.runtime.services.proxies.events(victim?.name as string)).map((event) => event.reason),
          `${victim?.name} to notice`,
        ).toContain('InstanceNotFound'),
      {
        timeout: 60_000,
        interval: 500,
      },
    );
    const after = await settled({ ...suite, count: 3, timeoutMs: 120_000 });
    expect(after[host]).toContain(victim?.name);
    expect((await virsh(['domuuid', domain], host)).trim()).not.toBe(uuid);
    expect((await setMembers(suite.runtime, suite.set)).map((member) => member.name).sort()).toEqual(before);
    expect(await statusByHost(suite.runtime, suite.set)).toEqual(counts(after));
    expect((await suite.runtime.services.proxies.events(victim?.name as string)).find((event) => event.reason === 'InstanceNotFound')?.message).toBe(
      `instance hosts/${host}/domains/${domain} is gone; creating it again`,
    );
  });

  it('scaled 3 -> 1 keeps the oldest member; 1 -> 2 places the new one on the other host', async () => {
    const oldest = (await setMembers(suite.runtime, suite.set)).sort(
      (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.name.localeCompare(b.name),
    );
    await suite.runtime.services.proxySets.scale(suite.set, { replicas: 1 });
    const one = await settled({ ...suite, count: 1, timeoutMs: 120_000 });
    const [kept] = await setMembers(suite.runtime, suite.set);
    // not-Ready first (none is Ready here), then newest: the first one made stays.
    expect(kept?.name).toBe(oldest[0]?.name);
    for (const gone of oldest.slice(1)) {
      await vi.waitFor(async () => expect(await suite.runtime.store.proxies.get(gone.name), `${gone.name} removed`).toBeUndefined(), {
        timeout: 60_000,
        interval: 500,
      });
      expect(await domainState(instanceName(gone.name), gone.placement?.zone)).toBeUndefined();
    }
    expect(await statusByHost(suite.runtime, suite.set)).toEqual(counts(one));
    expect((await setEvents(suite.runtime, suite.set, 'MemberDeleted')).map((event) => event.message).sort()).toEqual(
      oldest
        .slice(1)
        .map((member) => `${member.name}: more members than replicas (not-Ready first, then newest)`)
        .sort(),
    );

    await suite.runtime.services.proxySets.scale(suite.set, { replicas: 2 });
    const two = await settled({ ...suite, count: 2, timeoutMs: 120_000 });
    expect(counts(two)).toEqual(Object.fromEntries(suite.lab.hosts.map((host) => [host.name, 1])));
    expect(await statusByHost(suite.runtime, suite.set)).toEqual(counts(two));
    expect(await runningByHost(suite.lab, [kept?.name as string])).toEqual(one);
  });
});
