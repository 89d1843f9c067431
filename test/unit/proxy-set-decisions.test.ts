// The proxy-set controller's decisions as a table: a situation (policy, members, hosts, history,
// now) and what the controller must do about it. Events are checked on their own below.
import { describe, expect, it } from 'vitest';
import { type DecideInput, decide, type SetAction, type SetHost, type SetMember, type SetPolicy } from '@/server/control/proxy-set-decide';

const minute = 60_000;
const now = 1_000 * minute;

const policy = (overrides: Partial<SetPolicy> = {}): SetPolicy => ({
  replicas: 3,
  readyTimeoutMs: 10 * minute,
  budget: { max: 3, windowMs: 30 * minute },
  hostDownGraceMs: 5 * minute,
  maxSurge: 1,
  maxUnavailable: 0,
  paused: false,
  ...overrides,
});

/** A Ready member of the current template on `host`, an hour old (`age` minutes when given). */
const member = (name: string, host: string, overrides: Partial<SetMember> & { age?: number } = {}): SetMember => {
  const { age = 60, ...rest } = overrides;
  return {
    name,
    host,
    ready: true,
    failed: false,
    deleting: false,
    current: true,
    labelsCurrent: true,
    createdAtMs: now - age * minute,
    displaced: false,
    ...rest,
  };
};
const notReady = (name: string, host: string, minutes: number, overrides: Partial<SetMember> & { age?: number } = {}) =>
  member(name, host, { ready: false, notReadySinceMs: now - minutes * minute, ...overrides });
const host = (name: string, overrides: Partial<SetHost> = {}): SetHost => ({ name, eligible: true, ...overrides });
const hosts = (...names: string[]) => names.map((name) => host(name));

const situation = (overrides: Partial<DecideInput>): DecideInput => ({
  policy: policy(),
  members: [],
  hosts: hosts('a', 'b'),
  history: [],
  exhausted: false,
  nowMs: now,
  ...overrides,
});

const withoutEvents = (actions: SetAction[]) => actions.filter((action) => action.kind !== 'event');
const create = (on: string, reason = 'ScaleUp', displaces?: string): SetAction =>
  ({ kind: 'create', host: on, reason, ...(displaces ? { displaces } : {}) }) as SetAction;
const remove = (name: string, reason = 'ScaleDown'): SetAction => ({ kind: 'delete', member: name, reason }) as SetAction;
const replace = (name: string, on: string, cause: 'Failed' | 'NotReady', firstFailure: string | null = null): SetAction => ({
  kind: 'replace',
  member: name,
  host: on,
  cause,
  firstFailure,
});
const replaced = (name: string, minutesAgo: number, firstFailure: string | null = 'cloud-init') => ({
  member: name,
  atMs: now - minutesAgo * minute,
  cause: 'NotReady' as const,
  firstFailure,
});

const rows: Array<[string, Partial<DecideInput>, SetAction[]]> = [
  // scale
  ['an empty set of 3 over two hosts lands 2/1, ties by placement order', {}, [create('a'), create('b'), create('a')]],
  ['a set at its count does nothing', { members: [member('s-1', 'a'), member('s-2', 'b'), member('s-3', 'a')] }, []],
  [
    'scale down deletes the not-Ready member first, then the newest',
    { policy: policy({ replicas: 1 }), members: [member('old', 'a', { age: 90 }), notReady('sick', 'b', 2, { age: 5 }), member('young', 'b', { age: 10 })] },
    [remove('sick'), remove('young')],
  ],
  ['scale to 0 deletes every member', { policy: policy({ replicas: 0 }), members: [member('s-1', 'a'), member('s-2', 'b')] }, [remove('s-2'), remove('s-1')]],
  // spread
  [
    'uneven hosts: new members go to the emptiest hosts, ties by placement order (c before b)',
    { policy: policy({ replicas: 4 }), hosts: hosts('c', 'a', 'b'), members: [member('s-1', 'a'), member('s-2', 'a')] },
    [create('c'), create('b')],
  ],
  [
    'never a second member on a host while another eligible host has none',
    { policy: policy({ replicas: 3 }), hosts: hosts('a', 'b', 'c'), members: [member('s-1', 'a')] },
    [create('b'), create('c')],
  ],
  [
    'a host that is not eligible (full, unhealthy) gets nothing',
    { policy: policy({ replicas: 2 }), hosts: [host('a'), host('b', { eligible: false })] },
    [create('a'), create('a')],
  ],
  ['no eligible host: nothing is created', { hosts: [host('a', { eligible: false })] }, []],
  // replacement
  [
    'a Failed member is replaced at once, by a member on the emptiest host, its first failure recorded',
    { policy: policy({ replicas: 2 }), members: [member('s-1', 'a', { ready: false, failed: true, diagnosis: 'seed' }), member('s-2', 'b')] },
    [replace('s-1', 'a', 'Failed', 'seed')],
  ],
  [
    'a member not Ready within readyTimeout is replaced',
    { policy: policy({ replicas: 2 }), members: [notReady('s-1', 'a', 11, { diagnosis: 'cloud-init' }), member('s-2', 'b')] },
    [replace('s-1', 'a', 'NotReady', 'cloud-init')],
  ],
  [
    'a member not Ready for less than readyTimeout is left booting',
    { policy: policy({ replicas: 2 }), members: [notReady('s-1', 'a', 9), member('s-2', 'b')] },
    [],
  ],
  // budget
  [
    'past the budget (3 replacements in the 30 min window) the set stops replacing and says so',
    {
      policy: policy({ replicas: 2 }),
      members: [notReady('s-9', 'a', 20, { diagnosis: 'agent' }), member('s-2', 'b')],
      history: [replaced('s-4', 25, 'agent'), replaced('s-5', 15, 'port'), replaced('s-6', 12, 'agent')],
    },
    [{ kind: 'exhausted', message: expect.stringContaining('s-6: not Ready in time (first failure: agent)') as unknown as string }],
  ],
  [
    'replacements older than the window no longer count against the budget',
    {
      policy: policy({ replicas: 2 }),
      members: [notReady('s-9', 'a', 20, { diagnosis: 'agent' }), member('s-2', 'b')],
      history: [replaced('s-4', 95, 'seed'), replaced('s-5', 40, 'port'), replaced('s-6', 12, 'port')],
    },
    [replace('s-9', 'a', 'NotReady', 'agent')],
  ],
  [
    'once exhausted it stays stopped until the admin acts, even after the window',
    {
      policy: policy({ replicas: 2 }),
      exhausted: true,
      members: [member('s-1', 'a', { ready: false, failed: true }), member('s-2', 'b')],
      history: [replaced('s-0', 120)],
    },
    [],
  ],
  [
    'after the admin released the stop, replacements before that no longer count',
    {
      policy: policy({ replicas: 2 }),
      budgetSinceMs: now - 2 * minute,
      members: [notReady('s-9', 'a', 20, { diagnosis: 'agent' }), member('s-2', 'b')],
      history: [replaced('s-4', 25, 'seed'), replaced('s-5', 15, 'port'), replaced('s-6', 12, 'port')],
    },
    [replace('s-9', 'a', 'NotReady', 'agent')],
  ],
  // back-off
  [
    'a replacement failing the same way as the last waits 1 min after it',
    {
      policy: policy({ replicas: 2, budget: { max: 10, windowMs: 30 * minute } }),
      members: [notReady('s-9', 'a', 11, { diagnosis: 'cloud-init' }), member('s-2', 'b')],
      history: [replaced('s-8', 0.5)],
    },
    [],
  ],
  [
    '... and is replaced once that minute has passed',
    {
      policy: policy({ replicas: 2, budget: { max: 10, windowMs: 30 * minute } }),
      members: [notReady('s-9', 'a', 11, { diagnosis: 'cloud-init' }), member('s-2', 'b')],
      history: [replaced('s-8', 1)],
    },
    [replace('s-9', 'a', 'NotReady', 'cloud-init')],
  ],
  [
    'three the same way in a row: it waits 4 min (1, 2, 4 ...)',
    {
      policy: policy({ replicas: 2, budget: { max: 10, windowMs: 30 * minute } }),
      members: [notReady('s-9', 'a', 11, { diagnosis: 'cloud-init' }), member('s-2', 'b')],
      history: [replaced('s-5', 20, 'seed'), replaced('s-6', 12), replaced('s-7', 8), replaced('s-8', 3.5)],
    },
    [],
  ],
  [
    'a replacement failing another way than the last is not held back',
    {
      policy: policy({ replicas: 2, budget: { max: 10, windowMs: 30 * minute } }),
      members: [notReady('s-9', 'a', 11, { diagnosis: 'port' }), member('s-2', 'b')],
      history: [replaced('s-8', 0.5)],
    },
    [replace('s-9', 'a', 'NotReady', 'port')],
  ],
  // host down
  [
    'a host down for less than the grace changes nothing, however its members look',
    {
      policy: policy({ replicas: 2 }),
      hosts: [host('a', { eligible: false, downSinceMs: now - 4 * minute }), host('b')],
      members: [notReady('s-1', 'a', 30), member('s-2', 'b')],
    },
    [],
  ],
  [
    'past the grace its members are replaced elsewhere (and marked to go when it is back)',
    {
      policy: policy({ replicas: 2 }),
      hosts: [host('a', { eligible: false, downSinceMs: now - 6 * minute }), host('b'), host('c')],
      members: [member('s-1', 'a'), member('s-2', 'b')],
    },
    [create('c', 'HostDown', 's-1')],
  ],
  [
    'while the host stays down a displaced member is left alone',
    {
      policy: policy({ replicas: 2 }),
      hosts: [host('a', { eligible: false, downSinceMs: now - 60 * minute }), host('b'), host('c')],
      members: [member('s-1', 'a', { ready: false, displaced: true }), member('s-2', 'b'), member('s-3', 'c')],
    },
    [],
  ],
  [
    'the host is back: the displaced members are deleted, not the newest',
    {
      policy: policy({ replicas: 2 }),
      hosts: hosts('a', 'b', 'c'),
      members: [member('s-1', 'a', { age: 90, displaced: true }), member('s-2', 'b', { age: 90 }), member('s-3', 'c', { age: 5 })],
    },
    [remove('s-1', 'HostBack')],
  ],
  // rolling change
  [
    'a template change starts with maxSurge (1) new member, deleting nothing',
    {
      members: [member('s-1', 'a', { current: false }), member('s-2', 'b', { current: false }), member('s-3', 'c', { current: false })],
      hosts: hosts('a', 'b', 'c'),
    },
    [create('a', 'Rollout')],
  ],
  [
    'while the new member is not Ready no old one goes and no other is made',
    {
      members: [
        member('s-1', 'a', { current: false }),
        member('s-2', 'b', { current: false }),
        member('s-3', 'c', { current: false }),
        notReady('s-4', 'a', 1),
      ],
      hosts: hosts('a', 'b', 'c'),
    },
    [],
  ],
  [
    'once it is Ready an old one (newest) goes and the next new one is made',
    {
      members: [
        member('s-1', 'a', { current: false, age: 90 }),
        member('s-2', 'b', { current: false, age: 80 }),
        member('s-3', 'c', { current: false, age: 70 }),
        member('s-4', 'a', { age: 2 }),
      ],
      hosts: hosts('a', 'b', 'c'),
    },
    [remove('s-3', 'Rollout'), create('c', 'Rollout')],
  ],
  [
    'an old member that is not Ready goes before Ready ones: Ready never drops below replicas',
    {
      members: [
        member('s-1', 'a', { current: false }),
        notReady('s-2', 'b', 2, { current: false }),
        member('s-3', 'c', { current: false }),
        member('s-4', 'a', { age: 2 }),
      ],
      hosts: hosts('a', 'b', 'c'),
    },
    [remove('s-2', 'Rollout'), create('b', 'Rollout')],
  ],
  [
    'maxSurge 2 makes two at a time',
    {
      policy: policy({ maxSurge: 2 }),
      members: [member('s-1', 'a', { current: false }), member('s-2', 'b', { current: false }), member('s-3', 'c', { current: false })],
      hosts: hosts('a', 'b', 'c'),
    },
    [create('a', 'Rollout'), create('b', 'Rollout')],
  ],
  [
    'maxUnavailable 1 with maxSurge 0 deletes one old member first, then makes its successor',
    {
      policy: policy({ maxSurge: 0, maxUnavailable: 1 }),
      members: [
        member('s-1', 'a', { current: false, age: 90 }),
        member('s-2', 'b', { current: false, age: 80 }),
        member('s-3', 'c', { current: false, age: 70 }),
      ],
      hosts: hosts('a', 'b', 'c'),
    },
    [remove('s-3', 'Rollout'), create('c', 'Rollout')],
  ],
  [
    'the last old member goes when the last new one is Ready',
    { members: [member('s-3', 'c', { current: false }), member('s-4', 'a'), member('s-5', 'b'), member('s-6', 'c', { age: 1 })], hosts: hosts('a', 'b', 'c') },
    [remove('s-3', 'Rollout')],
  ],
  [
    // Met writing the real-guest rollout (test/guest/proxy-set-rolling, which checks one member per
    // host after it): counting the old member that is leaving, the hosts tied and placement order put
    // both new members on b, a 2/0 set at the end.
    'a rollout puts the next new member where the fewest members of the new template are, so the set ends spread',
    {
      policy: policy({ replicas: 2 }),
      members: [member('s-1', 'a', { current: false, age: 90 }), member('s-2', 'b', { current: false, age: 80 }), member('s-3', 'b', { age: 2 })],
      hosts: hosts('b', 'a'),
    },
    [remove('s-2', 'Rollout'), create('a', 'Rollout')],
  ],
  [
    'among hosts with as few new-template members, the one with fewer members in all gets the next',
    {
      members: [
        member('s-1', 'a', { current: false, age: 90 }),
        member('s-2', 'a', { current: false, age: 80 }),
        member('s-3', 'b', { current: false, age: 70 }),
        member('s-4', 'c', { age: 2 }),
      ],
      hosts: hosts('a', 'b', 'c'),
    },
    [remove('s-3', 'Rollout'), create('b', 'Rollout')],
  ],
  // pause, labels
  [
    'a paused set rolls nothing',
    {
      policy: policy({ paused: true }),
      members: [member('s-1', 'a', { current: false }), member('s-2', 'b', { current: false }), member('s-3', 'c', { current: false })],
      hosts: hosts('a', 'b', 'c'),
    },
    [],
  ],
  [
    'a paused set still keeps its count (with the current template)',
    {
      policy: policy({ paused: true }),
      members: [member('s-1', 'a', { current: false }), member('s-2', 'b', { current: false })],
      hosts: hosts('a', 'b', 'c'),
    },
    [create('c')],
  ],
  [
    'a labels-only template change relabels the members in place',
    { policy: policy({ replicas: 1 }), members: [member('s-1', 'a', { labelsCurrent: false })] },
    [{ kind: 'relabel', member: 's-1' }],
  ],
  ['members being deleted do not count', { policy: policy({ replicas: 1 }), members: [member('s-1', 'b', { deleting: true })] }, [create('a')]],
];

describe('proxy-set decisions', () => {
  it.each(rows)('%s', (_, overrides, expected) => {
    expect(withoutEvents(decide(situation(overrides)).actions)).toEqual(expected);
  });

  it('says why nothing is created when no host is eligible', () => {
    const { actions } = decide(situation({ hosts: [host('a', { eligible: false })] }));
    expect(actions).toContainEqual(expect.objectContaining({ kind: 'event', type: 'Warning', reason: 'NoEligibleHost' }));
  });

  it('shows ReplacementsExhausted with the last diagnoses, and Available by the Ready count', () => {
    const { conditions } = decide(
      situation({
        policy: policy({ replicas: 2 }),
        exhausted: true,
        members: [member('s-1', 'a', { ready: false, failed: true }), member('s-2', 'b')],
        history: [replaced('s-0', 10, 'seed')],
      }),
    );
    expect(conditions).toEqual([
      {
        type: 'ReplacementsExhausted',
        status: 'True',
        reason: 'BudgetSpent',
        message: expect.stringContaining('s-0: not Ready in time (first failure: seed)'),
      },
      { type: 'Available', status: 'False', reason: 'TooFewReady', message: '1 of 2 Ready, at least 2 wanted' },
    ]);
  });

  it('reports the rollout: progressing, paused, complete', () => {
    const members = [member('s-1', 'a', { current: false }), member('s-2', 'b'), member('s-3', 'a')];
    expect(decide(situation({ members })).rollout).toEqual({ state: 'Progressing', updated: 2, replicas: 3 });
    expect(decide(situation({ members, policy: policy({ paused: true }) })).rollout.state).toBe('Paused');
    expect(decide(situation({ members: members.map((each) => ({ ...each, current: true })) })).rollout.state).toBe('Complete');
  });

  it('asks to look again when a timer runs out: readyTimeout, the grace, the back-off', () => {
    expect(decide(situation({ policy: policy({ replicas: 1 }), members: [notReady('s-1', 'a', 9)] })).requeueAfterMs).toBe(minute);
    expect(
      decide(
        situation({
          policy: policy({ replicas: 1 }),
          hosts: [host('a', { downSinceMs: now - 2 * minute, eligible: false }), host('b')],
          members: [member('s-1', 'a')],
        }),
      ).requeueAfterMs,
    ).toBe(3 * minute);
    expect(
      decide(
        situation({
          policy: policy({ replicas: 1, budget: { max: 9, windowMs: 30 * minute } }),
          members: [notReady('s-1', 'a', 11, { diagnosis: 'cloud-init' })],
          history: [replaced('s-0', 0.25)],
        }),
      ).requeueAfterMs,
    ).toBe(0.75 * minute);
    expect(decide(situation({ policy: policy({ replicas: 1 }), members: [member('s-1', 'a')] })).requeueAfterMs).toBeUndefined();
  });

  it('a set whose members never become Ready stops after the budget: count the creates over time', () => {
    // Each pass: every member is not Ready; time moves 11 min. Replacements stop at the budget.
    let members: SetMember[] = [];
    const history: DecideInput['history'] = [];
    let exhausted = false;
    let creates = 0;
    let serial = 0;
    for (let pass = 0; pass < 40; pass += 1) {
      const nowMs = now + pass * 11 * minute;
      const decision = decide({
        policy: policy({ replicas: 2, budget: { max: 2, windowMs: 30 * minute } }),
        members,
        hosts: hosts('a', 'b'),
        history,
        exhausted,
        nowMs,
      });
      for (const action of decision.actions) {
        if (action.kind === 'create' || action.kind === 'replace') {
          creates += 1;
          serial += 1;
          const fresh = { ...notReady(`s-${serial}`, action.host, 0, { diagnosis: 'cloud-init' }), createdAtMs: nowMs, notReadySinceMs: nowMs };
          if (action.kind === 'replace') {
            members = members.filter((each) => each.name !== action.member);
            history.push({ member: action.member, atMs: nowMs, cause: action.cause, firstFailure: action.firstFailure });
          }
          members.push(fresh);
        }
        if (action.kind === 'exhausted') exhausted = true;
      }
    }
    expect(exhausted).toBe(true);
    // 2 first members, then at most 2 replacements (the budget) per 30 min before the latch.
    expect(creates).toBeLessThanOrEqual(2 + 2);
  });
});
