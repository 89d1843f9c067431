// The fault test of a ProxySet on the lab: its members boot no OS (the lab image), so none is ever
// Ready. With readyTimeout 30 s (the least a set accepts) and a budget of 2 replacements, a set of 2
// replaces each member once (diagnosed first), then stops: a ReplacementsExhausted condition naming
// the last diagnoses, one such event, and no further create while its members stay not Ready past
// the timeout. The creates are counted three ways: the domains the provider was asked for, the
// set's MemberCreated events and the domains defined on the hosts.
import { describe, expect, it, vi } from 'vitest';
import { definedByHost, labSet, proxySetSuite, setEvents, setMembers } from './proxy-set-lab-support';

const readyTimeoutMs = 30_000;
/** the set controller's interval when nothing wakes it sooner (server/runtime/control-loops.ts) */
const controllerIntervalMs = 10_000;

const suite = proxySetSuite({ suffix: 'budget', env: { PROVIDER_CHECK_INTERVAL: '5s' } });

const exhausted = async () =>
  (await suite.runtime.services.proxySets.get(suite.set)).status.conditions.find((condition) => condition.type === 'ReplacementsExhausted');
const total = (byHost: Record<string, number>) => Object.values(byHost).reduce((sum, count) => sum + count, 0);

describe('a ProxySet whose members never become Ready', () => {
  it('replaces each member once within the budget of 2, then stops with ReplacementsExhausted', async () => {
    const started = Date.now();
    await suite.runtime.services.proxySets.create(
      labSet({ name: suite.set, provider: suite.entry, replicas: 2, readyTimeout: '30s', replacementBudget: { max: 2, window: '30m' } }),
    );
    // The first pass makes both members at once (the set's create wakes the controller).
    const first = await vi.waitFor(
      async () => {
        const names = (await setMembers(suite.runtime, suite.set)).map((member) => member.name).sort();
        expect(names, 'two members').toHaveLength(2);
        return names;
      },
      { timeout: 30_000, interval: 250 },
    );

    await vi.waitFor(async () => expect((await exhausted())?.status, 'the budget to run out').toBe('True'), { timeout: 240_000, interval: 1_000 });
    console.log(`budget exhausted ${Math.round((Date.now() - started) / 1000)} s after the set was created`);
    const view = await suite.runtime.services.proxySets.get(suite.set);
    expect(view.status.replacements.map((record) => [record.member, record.cause]).sort()).toEqual(first.map((name) => [name, 'NotReady']));
    const condition = await exhausted();
    console.log(`ReplacementsExhausted: ${condition?.message}`);
    expect(condition?.reason).toBe('BudgetSpent');
    expect(condition?.message).toMatch(
      /^2 replacements within the budget's window \(at most 2\); replacing stopped until the set is changed, scaled or resumed\. Last: /,
    );
    for (const name of first) expect(condition?.message).toContain(`${name}: not Ready in time`);
    expect(await setEvents(suite.runtime, suite.set, 'ReplacementsExhausted')).toHaveLength(1);
    expect((await setEvents(suite.runtime, suite.set, 'MemberReplaced')).map((event) => /^(\S+) replaced by/.exec(event.message)?.[1]).sort()).toEqual(first);
  });

  it('makes no further member while its members stay not Ready past the timeout', async () => {
    const members = await setMembers(suite.runtime, suite.set);
    expect(members).toHaveLength(2);
    // Each member is past readyTimeout (a candidate a set with budget left would replace), and the
    // controller has had two of its intervals since to act on it.
    const quietUntil = Math.max(...members.map((member) => Date.parse(member.createdAt))) + readyTimeoutMs + 2 * controllerIntervalMs;
    await vi.waitFor(() => expect(Date.now(), 'the members to be past the timeout for two controller intervals').toBeGreaterThanOrEqual(quietUntil), {
      timeout: quietUntil - Date.now() + 5_000,
      interval: 1_000,
    });
    expect((await suite.runtime.services.proxySets.get(suite.set)).status.failing).toBe(2);

    // Four domains asked for in all: 2 members, 2 replacements.
    expect(suite.run.domains.size).toBe(4);
    expect(await setEvents(suite.runtime, suite.set, 'MemberCreated')).toHaveLength(4);
    expect((await setMembers(suite.runtime, suite.set)).map((member) => member.name).sort()).toEqual(members.map((member) => member.name).sort());
    await vi.waitFor(async () => expect(total(await definedByHost(suite.lab, suite.run.domains)), 'the replaced domains to be gone').toBe(2), {
      timeout: 60_000,
      interval: 1_000,
    });
    expect((await exhausted())?.status).toBe('True');
    expect(await setEvents(suite.runtime, suite.set, 'ReplacementsExhausted')).toHaveLength(1);
  });
});
